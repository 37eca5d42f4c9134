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
1000 0.5935555
10000 59.9980875
EOD
$d0_1 << EOD
1000 0.030154
10000 0.3772945
100000 2.9630445
1000000 33.5813235
EOD
$d0_2 << EOD
1000 0.12152
10000 1.2432985
100000 13.184333
1000000 132.666269
EOD
$d0_3 << EOD
1000 0.0832785
10000 1.246714
100000 10.5088655
1000000 110.949777
EOD
$d0_4 << EOD
1000 0.146547
10000 1.7789785
100000 25.016166
1000000 408.141611
EOD
$d0_5 << EOD
1000 0.2949925
10000 3.684795
100000 36.54225
1000000 503.115465
EOD
$d0_6 << EOD
1000 0.1605835
10000 3.2784575
100000 47.399337
1000000 394.814034
EOD
$d0_7 << EOD
1000 0.2765605
10000 3.1860305
100000 70.810517
1000000 929.790666
EOD
$d0_8 << EOD
1000 0.419172
10000 4.7406205
100000 94.763196
1000000 1114.25678
EOD
$d0_9 << EOD
1000 0.111615
10000 1.5938335
100000 19.8305455
1000000 293.823888
EOD
$d0_10 << EOD
1000 0.12108
10000 1.3362415
100000 21.7153805
1000000 327.787394
EOD
$d0_11 << EOD
1000 0.4253065
10000 6.2795085
100000 134.099355
1000000 2174.36784
EOD
$d0_12 << EOD
1000 0.26673
10000 3.624501
100000 42.4376135
1000000 564.049099
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
