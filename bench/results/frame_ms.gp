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
1000 1.0216375
10000 97.8985375
EOD
$d0_1 << EOD
1000 0.0593595
10000 0.41895
100000 4.5003775
1000000 50.2678725
EOD
$d0_2 << EOD
1000 0.18462
10000 1.517695
100000 19.382976
1000000 165.803022
EOD
$d0_3 << EOD
1000 0.186251
10000 1.906274
100000 15.48337
1000000 165.051557
EOD
$d0_4 << EOD
1000 0.10375
10000 0.905571
100000 10.6289025
1000000 224.815243
EOD
$d0_5 << EOD
1000 0.112009
10000 1.231273
100000 11.929919
1000000 184.277292
EOD
$d0_6 << EOD
1000 0.077715
10000 0.734928
100000 8.6761785
1000000 107.504337
EOD
$d0_7 << EOD
1000 0.126314
10000 1.2557925
100000 10.4560065
1000000 124.017821
EOD
$d0_8 << EOD
1000 0.177437
10000 1.7113305
100000 15.3264095
1000000 183.351554
EOD
$d0_9 << EOD
1000 0.1311415
10000 1.423276
100000 17.314354
1000000 159.104786
EOD
$d0_10 << EOD
1000 0.1005925
10000 1.361674
100000 11.154137
1000000 162.612469
EOD
$d0_11 << EOD
1000 0.748398
10000 12.491187
100000 197.939138
EOD
$d0_12 << EOD
1000 0.535298
10000 5.968515
100000 63.642682
1000000 771.756363
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
