1ÿşı tunetab.heuristic{}
