#!/bin/sh
# render_movie_plot.sh AGGLO DIR: a tiny 3D run, then `agglo render` (one frame, every frame, a
# -s key), `agglo movie` checked with ffprobe (frame count and duration) and `agglo plot RUN_DIR`.
exe=$1
dir=$2
rm -rf "$dir"
fail() { echo "FAIL: $*"; exit 1; }
"$exe" run -s run.dim=3 -s particles.n=60 -s box.size=0.3 -s run.t_end=0.2 \
  -s output.trajectory_interval=0.02 -s output.snapshots=0,0.2 -s output.png_width=200 \
  -o "$dir/run" --quiet || fail "run"
[ "$(grep -c '^60$' "$dir/run/trajectory.xyz")" -eq 11 ] || fail "expected 11 frames"
# render: the last frame, frame 2, every frame; a picture key and a bad one
"$exe" render "$dir/run" -o "$dir/r" --quiet || fail "render (last)"
[ -s "$dir/r/frame_000011.png" ] || fail "frame_000011.png missing"
"$exe" render "$dir/run/trajectory.xyz" --frame 2 -o "$dir/r" -s picture.color=speed --quiet || fail "render --frame 2"
[ -s "$dir/r/frame_000002.png" ] || fail "frame_000002.png missing"
"$exe" render "$dir/run" --all -o "$dir/all" --quiet || fail "render --all"
[ "$(ls "$dir/all" | wc -l)" -eq 11 ] || fail "render --all: $(ls "$dir/all" | wc -l) pictures"
[ "$(ls "$dir/all" | head -n 1)" = frame_000001.png ] || fail "frame names"
if "$exe" render "$dir/run" -o "$dir/r" -s picture.view=1,2 --quiet 2>"$dir/err"; then fail "a 2-value view was taken"; fi
grep -q "picture.view has 2 values" "$dir/err" || fail "message: $(cat "$dir/err")"
if "$exe" render "$dir/run" --frame 99 -o "$dir/r" --quiet 2>/dev/null; then fail "frame 99 of 11 was drawn"; fi
# plots of the run's stats.csv
"$exe" plot "$dir/run" -o "$dir/plots" > /dev/null || fail "plot RUN_DIR"
for p in clusters cluster_size kinetic_energy solver; do
  [ -s "$dir/plots/$p.png" ] || fail "plot $p.png missing"
done
# the movie: 11 frames at 5 fps = 2.2 s
if ! command -v ffmpeg > /dev/null || ! command -v ffprobe > /dev/null; then
  echo "ffmpeg not installed: movie not checked"; exit 77
fi
"$exe" movie "$dir/run" -o "$dir/movie.mp4" --fps 5 --quiet || fail "movie"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$dir/movie.mp4")
[ "$frames" = 11 ] || fail "movie has $frames frames, not 11"
dur=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$dir/movie.mp4")
awk -v d="$dur" 'BEGIN { exit !(d > 2.15 && d < 2.25) }' || fail "movie lasts $dur s, not 2.2"
[ ! -e "$dir/movie.mp4.frames" ] || fail "the frames were left behind"
echo "render, movie, plot ok"
