package token

import "unicode"

// inClass evaluates the pattern's classes the way regexp2's generated
// code does, with the unicode package's predicates.
func inClass(r rune, class string) bool {
	switch class {
	case "upper":
		return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
	case "lower":
		return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
	case "letter":
		return unicode.In(r, unicode.L)
	case "number":
		return unicode.In(r, unicode.N)
	case "space":
		return unicode.IsSpace(r)
	}
	panic(class)
}
