package transcript

// SetLimits sets MaxLine and LongLineBudget for a test, returning a
// function that restores them.
func SetLimits(maxLineBytes, budget int64) (restore func()) {
	oldMax, oldGate := maxLine, longLines
	maxLine, longLines = maxLineBytes, newGate(budget)
	return func() { maxLine, longLines = oldMax, oldGate }
}
