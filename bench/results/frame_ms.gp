# Drawn by spheretest-bench from results.csv's frame_cpu_ms_median; run with: gnuplot frame_ms.gp
set terminal pngcairo size 560,620 font 'Sans,10'
set output 'frame_ms.png'
set multiplot layout 1,1 title 'ms per frame (update of moved circles + all pairs; CPU time, median); dashed: peers'
set logscale xy
set grid
set xlabel 'circles'
set ylabel 'CPU ms per frame'
set format x '%.0s%c'
set key top left font ',8'
set xrange [*:*]
$d0_0 << EOD
1000 1.751855
10000 174.06098
EOD
$d0_1 << EOD
1000 0.0753805
10000 0.7665055
100000 7.667717
1000000 78.751402
EOD
$d0_2 << EOD
1000 0.161532
10000 1.736977
100000 16.512909
1000000 168.191204
EOD
$d0_3 << EOD
1000 0.1724175
10000 2.028426
100000 21.8577135
1000000 208.501261
EOD
$d0_4 << EOD
1000 0.1413435
10000 1.7795565
100000 26.4639905
1000000 431.111838
EOD
$d0_5 << EOD
1000 0.166892
10000 2.332589
100000 26.116427
1000000 394.34559
EOD
$d0_6 << EOD
1000 0.1328485
10000 1.572395
100000 21.5170625
1000000 210.748679
EOD
$d0_7 << EOD
1000 0.1506065
10000 1.803356
100000 19.8032735
1000000 217.99266
EOD
$d0_8 << EOD
1000 0.204396
10000 3.016921
100000 32.359921
1000000 330.610179
EOD
$d0_9 << EOD
1000 0.1313
10000 1.863363
100000 16.6374945
1000000 236.856701
EOD
$d0_10 << EOD
1000 0.1613015
10000 1.915515
100000 21.4885245
1000000 224.170051
EOD
$d0_11 << EOD
1000 0.5898205
10000 13.3541355
100000 254.513701
EOD
$d0_12 << EOD
1000 0.4504455
10000 5.855749
100000 68.6853075
1000000 897.167599
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
