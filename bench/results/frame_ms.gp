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
1000 0.9840905
10000 95.2119665
EOD
$d0_1 << EOD
1000 0.0417235
10000 0.4094155
100000 4.431415
1000000 51.053728
EOD
$d0_2 << EOD
1000 0.1570705
10000 1.489824
100000 16.129175
1000000 164.959529
EOD
$d0_3 << EOD
1000 0.1520885
10000 1.53463
100000 15.740249
1000000 165.120028
EOD
$d0_4 << EOD
1000 0.0971705
10000 0.8739355
100000 9.815829
1000000 167.095303
EOD
$d0_5 << EOD
1000 0.08517
10000 1.3293505
100000 11.6988665
1000000 161.960079
EOD
$d0_6 << EOD
1000 0.0774925
10000 0.957653
100000 8.354864
1000000 102.823923
EOD
$d0_7 << EOD
1000 0.0866005
10000 0.995246
100000 10.245337
1000000 124.167552
EOD
$d0_8 << EOD
1000 0.1441545
10000 2.0359685
100000 15.3746765
1000000 190.773855
EOD
$d0_9 << EOD
1000 0.063274
10000 1.3748745
100000 11.7381215
1000000 149.433045
EOD
$d0_10 << EOD
1000 0.1001065
10000 1.4802785
100000 13.1270525
1000000 137.029381
EOD
$d0_11 << EOD
1000 0.5862625
10000 11.687126
100000 206.610477
EOD
$d0_12 << EOD
1000 0.4139305
10000 5.341078
100000 62.0563935
1000000 748.95272
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
