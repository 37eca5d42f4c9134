# Drawn by spheretest-bench from results.csv's frame_cpu_ms_median; run with: gnuplot frame_ms.gp
set terminal pngcairo size 560,620 font 'Sans,10'
set output 'frame_ms.png'
set multiplot layout 1,1 title "ms per frame: update of the moved circles + all pairs\nCPU time, median; dashed: peers"
set logscale xy
set grid
set xlabel 'circles'
set ylabel 'CPU ms per frame'
set format x '%.0s%c'
set key top left font ',8'
set xrange [*:*]
$d0_0 << EOD
1000 0.9700135
10000 99.911205
EOD
$d0_1 << EOD
1000 0.042068
10000 0.434946
100000 6.2223725
1000000 52.3810515
EOD
$d0_2 << EOD
1000 0.1436315
10000 1.5216825
100000 17.825164
1000000 163.341404
EOD
$d0_3 << EOD
1000 0.201428
10000 1.590665
100000 17.448184
1000000 163.5686
EOD
$d0_4 << EOD
1000 0.052098
10000 0.6059035
100000 6.996458
1000000 95.4878665
EOD
$d0_5 << EOD
1000 0.0931245
10000 1.0894445
100000 13.1293405
1000000 158.766025
EOD
$d0_6 << EOD
1000 0.0542015
10000 0.740621
100000 9.039256
1000000 101.497636
EOD
$d0_7 << EOD
1000 0.088992
10000 1.00885
100000 10.536588
1000000 148.586645
EOD
$d0_8 << EOD
1000 0.1344585
10000 1.5685485
100000 16.363207
1000000 181.401103
EOD
$d0_9 << EOD
1000 0.0638195
10000 1.019789
100000 12.0042275
1000000 145.968895
EOD
$d0_10 << EOD
1000 0.098395
10000 1.103899
100000 12.980036
1000000 135.847721
EOD
$d0_11 << EOD
1000 0.5812255
10000 12.753501
100000 221.370054
EOD
$d0_12 << EOD
1000 0.549917
10000 5.541277
100000 64.139008
1000000 771.960621
EOD
set title 'spheretest'
plot $d0_0 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title 'brute', \
     $d0_1 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title 'grid', \
     $d0_2 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title 'grid-replicated', \
     $d0_3 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#9467bd' title 'hgrid', \
     $d0_4 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#ff7f0e' title 'quadtree', \
     $d0_5 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#17becf' title 'fit-quadtree', \
     $d0_6 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#8c564b' title 'loose-quadtree', \
     $d0_7 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#e377c2' title 'radius-tree', \
     $d0_8 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#7f7f7f' title 'enneatree', \
     $d0_9 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#bcbd22' title 'sphere-tree', \
     $d0_10 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#393b79' title 'aabb-tree', \
     $d0_11 using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#637939' title 'box2d-tree', \
     $d0_12 using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title 'boost-rtree'
unset multiplot
