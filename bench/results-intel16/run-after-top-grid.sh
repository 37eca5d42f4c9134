#!/bin/bash
# After the sphere tree's top-level grid: queries at 100k and 1M (sphere tree, AABB tree, boost-rtree), then the
# sphere tree's 1M long run with and without regrouping, two processes at once. Run beside a
# spheretest-bench binary and its libbox2d.so.2, with OUT naming a folder for the results.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD
B=$PWD/spheretest-bench
S=$(date +%s)
timeout 150 $B --n 100k,1M --scenes spheretest --structures sphere-tree,aabb-tree,boost-rtree --frames 5 --queries 2000 --time-cap 600 --memory-cap-gb 0 --plot off --out /tmp/q > /tmp/q.log 2>&1
echo "queries took $(( $(date +%s)-S )) s"
for g in 8 0; do
  timeout 200 $B --n 1M --scenes spheretest --structures sphere-tree --frames 5 --settle 1 --queries 0 --steady 300 --time-cap 3000 --memory-cap-gb 0 --plot off --set sphere-tree.regroup=$g --out /tmp/s1m-$g > /tmp/s1m-$g.log 2>&1 &
done
wait
echo "took $(( $(date +%s)-S )) s"
cp /tmp/q/results.csv $OUT/queries-after-top-grid.csv
for g in 8 0; do cp /tmp/s1m-$g/results.csv $OUT/longrun-sphere-1M-top-grid-regroup$g.csv; done
grep -h "FAILED" /tmp/q.log /tmp/s1m-*.log
