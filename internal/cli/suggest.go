package cli

import "sort"

// nearest returns the candidate closest to word by edit distance (a
// transposition of two neighbours counts as one edit), when it is close
// enough to be a slip of the keys: at most one edit for a word of up to four
// letters, two beyond. Ties go to the first in sorted order; "" when none is
// close.
func nearest(word string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	limit := 2
	if len([]rune(word)) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, c := range sorted {
		if d := editDistance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of neighbours,
// each one edit.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
