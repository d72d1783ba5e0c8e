"""Run by pvpython (test_paraview.py): read an XDMF file with each of ParaView's XDMF readers and
save what each gives, frame by frame, to an .npz: per reader its times, and per frame the points
and every point array (copies of ParaView's own arrays, through vtk's numpy support).

    pvpython paraview_read.py FILE.xdmf OUT.npz"""
import sys

import numpy as np
from paraview import servermanager as sm
from paraview import simple as pv
from vtkmodules.util.numpy_support import vtk_to_numpy

path, out = sys.argv[1:3]
data = {}
for name in ["Xdmf3ReaderS", "Xdmf3ReaderT", "XDMFReader"]:
    reader = pv.XDMFReader(FileNames=[path]) if name == "XDMFReader" else getattr(pv, name)(FileName=[path])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    data[f"{name}/times"] = np.array(times)
    for k, t in enumerate(times):
        reader.UpdatePipeline(t)
        d = sm.Fetch(reader)
        if d.IsA("vtkMultiBlockDataSet"):
            d = d.GetBlock(0)
        pts = d.GetPoints()
        data[f"{name}/{k}/points"] = np.array(vtk_to_numpy(pts.GetData())) if pts else np.zeros((0, 3))
        pd = d.GetPointData()
        for i in range(pd.GetNumberOfArrays()):
            data[f"{name}/{k}/{pd.GetArrayName(i)}"] = np.array(vtk_to_numpy(pd.GetArray(i)))
    pv.Delete(reader)
np.savez(out, **data)
