# The call of run 37, as sent to the device (one line there), on the pack
# of main of 64596ac in .gpu (run 35's): 60 frames at 1000², the texture
# on, each GPU backend's screenshot, and the vertices of all but opencl.
X=.gpu/enter.sh
for b in cuda vulkan cuda-nvx; do
  bash $X vkcuda-sim --headless --backend $b --grid 1000 --texture on --frames 60 \
    --screenshot $OUT/$b.png --dump-vertices $OUT/$b.bin >/dev/null 2>&1; echo "$b rc=$?"
done
bash $X vkcuda-sim --headless --backend opencl --sync binary --grid 1000 --texture on --frames 60 \
  --screenshot $OUT/opencl.png >/dev/null 2>&1; echo opencl rc=$?
cd $OUT; md5sum *; gzip -9 *.bin; ls -la
