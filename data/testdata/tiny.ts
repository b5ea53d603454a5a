# A hand-made univariate .ts file for the reader's tests.
@problemName Tiny
@timeStamps false
@missing true
@univariate true
@equalLength false
@classLabel true up down
@data
0.5,1.5,2.5:up
1,2,3,4:down
-1,?,NaN,0:up
