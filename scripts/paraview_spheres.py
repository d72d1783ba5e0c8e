"""Open an agglo run in ParaView as spheres of their radius coloured by cluster, in one command.

    pvpython scripts/paraview_spheres.py RUN_DIR [-o picture.png] [--time T] [--reader NAME]

RUN_DIR holds trajectory.xdmf (a run with output.format = h5md). Writes the picture (default
RUN_DIR/paraview.png, at the last frame or the frame at time T) and RUN_DIR/spheres.pvsm, a
ParaView state with the same pipeline: `paraview --state=RUN_DIR/spheres.pvsm` opens it in the
GUI, where the time slider plays the frames. Without a display:
`xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" pvpython ...` (-noreset: else Xvfb resets
when pvpython's first connection closes, and the next one may fail).
The reader is Xdmf3ReaderS (ParaView's choice for .xdmf); Xdmf3ReaderT and XDMFReader read the
file too (docs/formats.md)."""
import argparse
import os
import sys

from paraview import simple as pv


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="run directory (with trajectory.xdmf) or an .xdmf file")
    ap.add_argument("-o", "--output", help="picture (PNG); default RUN_DIR/paraview.png")
    ap.add_argument("--time", type=float, help="time of the frame drawn (default: the last)")
    ap.add_argument("--reader", default="Xdmf3ReaderS", choices=["Xdmf3ReaderS", "Xdmf3ReaderT", "XDMFReader"])
    ap.add_argument("--size", default="1000x800", help="picture size in pixels, WIDTHxHEIGHT")
    a = ap.parse_args()
    xdmf = a.run if a.run.endswith(".xdmf") else os.path.join(a.run, "trajectory.xdmf")
    if not os.path.isfile(xdmf):
        sys.exit(f"paraview_spheres: {xdmf}: no such file (a run with output.format = h5md writes it)")
    out_dir = os.path.dirname(os.path.abspath(xdmf))
    png = a.output or os.path.join(out_dir, "paraview.png")
    width, height = (int(v) for v in a.size.split("x"))

    if a.reader == "XDMFReader":
        reader = pv.XDMFReader(FileNames=[xdmf])
    else:
        reader = getattr(pv, a.reader)(FileName=[xdmf])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues) or [0.0]
    t = times[-1] if a.time is None else min(times, key=lambda x: abs(x - a.time))

    # cluster labels are the smallest id of each cluster: neighbouring labels would get
    # neighbouring colours, so each label is hashed to one of 61 hues first
    hue = pv.PythonCalculator(Input=reader, ArrayName="cluster_hue", ArrayAssociation="Point Data",
                              Expression="(inputs[0].PointData['cluster'].astype('int64') * 40503) % 61")
    # a sphere per particle: the glyph's unit sphere has radius 0.5, scaled by 2 radius
    glyph = pv.Glyph(Input=hue, GlyphType="Sphere")
    glyph.OrientationArray = ["POINTS", "No orientation array"]
    glyph.ScaleArray = ["POINTS", "radius"]
    glyph.ScaleFactor = 2.0
    glyph.GlyphMode = "All Points"
    glyph.GlyphType.ThetaResolution = 24
    glyph.GlyphType.PhiResolution = 16

    view = pv.GetActiveViewOrCreate("RenderView")
    view.ViewSize = [width, height]
    view.ViewTime = t
    pv.GetAnimationScene().AnimationTime = t
    view.OrientationAxesVisibility = 0
    view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    shown = pv.Show(glyph, view)
    pv.ColorBy(shown, ("POINTS", "cluster_hue"))
    lut = pv.GetColorTransferFunction("cluster_hue")
    lut.ApplyPreset("Rainbow Uniform", True)
    lut.RescaleTransferFunction(0.0, 60.0)
    outline = pv.Show(pv.Outline(Input=reader), view)
    outline.DiffuseColor = [0.3, 0.3, 0.3]
    view.CameraPosition = [1.0, -1.6, 0.9]  # agglo's default 3D view direction (picture.view)
    view.CameraFocalPoint = [0.0, 0.0, 0.0]
    view.CameraViewUp = [0.0, 0.0, 1.0]
    view.ResetCamera()
    pv.Render(view)
    pv.SaveScreenshot(png, view, ImageResolution=[width, height])
    pv.SaveState(os.path.join(out_dir, "spheres.pvsm"))
    print(f"{png}: t = {t:g}, {len(times)} frames ({a.reader}); state {os.path.join(out_dir, 'spheres.pvsm')}")


if __name__ == "__main__":
    main()
