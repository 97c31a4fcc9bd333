package clients

import (
	"fmt"

	"github.com/mcpcost/mcpcost/internal/num"
)

// The pre-scans below run before any parser: they bound the nesting depth
// (MaxConfigDepth) of a document in one pass without recursion, so that a
// document nested a million levels deep is refused with its position
// instead of exhausting a recursive parser's stack. Brackets inside
// strings and comments are not counted. They are not validators: what
// they let through is parsed and its errors reported by the parser.

func depthError(b []byte, off int, what string) *LimitError {
	line, col := lineCol(b, off)
	return &LimitError{Line: line, Col: col, Msg: fmt.Sprintf("%s nested more than %d levels deep, over the cap on config files: not read", what, MaxConfigDepth)}
}

// valuesError is a document holding more than max values.
func valuesError(b []byte, off, max int, what string) *LimitError {
	line, col := lineCol(b, off)
	return &LimitError{Line: line, Col: col, Msg: fmt.Sprintf("more than %s values (%s), over the cap on config files: not read", num.Int(max), what)}
}

// scanJSON bounds the nesting depth and the number of values (opened
// objects and arrays, and members and elements after the first, counted at
// their commas) of a JSON or JSONC document. Comments (// and /* */) are
// skipped in both.
func scanJSON(b []byte) *LimitError {
	_, le := countJSON(b)
	return le
}

// countJSON is scanJSON, also returning the number of values counted.
func countJSON(b []byte) (int, *LimitError) {
	depth, values := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = skipQuoted(b, i, '"')
		case '/':
			if i+1 < len(b) && b[i+1] == '/' {
				for i < len(b) && b[i] != '\n' {
					i++
				}
			} else if i+1 < len(b) && b[i+1] == '*' {
				i += 2
				for i+1 < len(b) && (b[i] != '*' || b[i+1] != '/') {
					i++
				}
				i++
			}
		case '[', '{':
			depth++
			values++
			if depth > MaxConfigDepth {
				return values, depthError(b, i, "arrays and objects")
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		case ',':
			values++
		}
		if values > MaxConfigValues {
			return values, valuesError(b, i, MaxConfigValues, "objects, arrays, members, elements")
		}
	}
	return values, nil
}

// skipQuoted returns the index of the quote closing the string opened at
// b[i], or the last index; a backslash escapes the next byte when q is a
// double quote.
func skipQuoted(b []byte, i int, q byte) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			if q == '"' {
				i++
			}
		case q:
			return i
		}
	}
	return len(b) - 1
}

// scanTOML bounds the nesting of a TOML document: the parts of a table
// header ([a.b.c] is three levels), of a dotted key, and the arrays and
// inline tables of a value, with the dotted keys inside them. It bounds the
// number of values too (MaxConfigValues): table headers, keys (at their =),
// arrays and inline tables, and elements after the first (at their commas).
func scanTOML(b []byte) *LimitError {
	_, le := countTOML(b)
	return le
}

// countTOML is scanTOML, also returning the number of values counted.
func countTOML(b []byte) (int, *LimitError) {
	values := 0
	type level struct {
		inline bool // an inline table, whose keys may be dotted
		dots   int
	}
	var stack []level
	table := 0    // levels of the current [table] header
	lineDots := 0 // dots of the key at the start of the line
	inKey := true // reading a key: at the start of a line, or after { or , in an inline table
	lineStart := true
	depth := func() int {
		d := table + lineDots + 1
		for _, l := range stack {
			d += 1 + l.dots
		}
		return d
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '[', '{', ',', '=':
			values++
			if values > MaxConfigValues {
				return values, valuesError(b, i, MaxConfigValues, "tables, keys, arrays, elements")
			}
		}
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			if len(stack) == 0 {
				inKey, lineDots, lineStart = true, 0, true
			}
			continue
		case '#':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			i--
			continue
		case '"', '\'':
			if i+2 < len(b) && b[i+1] == c && b[i+2] == c {
				// A multi-line string ends at the next three quotes.
				j := i + 3
				for ; j+2 < len(b); j++ {
					if c == '"' && b[j] == '\\' {
						j++
						continue
					}
					if b[j] == c && b[j+1] == c && b[j+2] == c {
						break
					}
				}
				i = min(j+2, len(b)-1)
			} else {
				i = skipQuotedLine(b, i, c)
			}
		case '[':
			if lineStart && len(stack) == 0 {
				// A table header: count its parts up to the closing bracket.
				parts := 1
				j := i + 1
				if j < len(b) && b[j] == '[' {
					parts++
					j++
				}
				for ; j < len(b) && b[j] != ']' && b[j] != '\n'; j++ {
					switch b[j] {
					case '.':
						parts++
						if parts > MaxConfigDepth {
							return values, depthError(b, j, "table names")
						}
					case '"', '\'':
						j = skipQuotedLine(b, j, b[j])
					}
				}
				table = parts
				for j < len(b) && b[j] == ']' {
					j++
				}
				i = j - 1
				inKey = false
				lineStart = false
				continue
			}
			stack = append(stack, level{})
			if depth() > MaxConfigDepth {
				return values, depthError(b, i, "arrays and inline tables")
			}
		case '{':
			stack = append(stack, level{inline: true})
			inKey = true
			if depth() > MaxConfigDepth {
				return values, depthError(b, i, "arrays and inline tables")
			}
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			inKey = false
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].inline {
				stack[len(stack)-1].dots = 0
				inKey = true
			}
		case '=':
			inKey = false
		case '.':
			if inKey {
				if len(stack) > 0 {
					stack[len(stack)-1].dots++
				} else {
					lineDots++
				}
				if depth() > MaxConfigDepth {
					return values, depthError(b, i, "dotted keys")
				}
			}
		}
		lineStart = false
	}
	return values, nil
}

// skipQuotedLine is skipQuoted for a string that cannot span lines: it
// stops at the end of the line.
func skipQuotedLine(b []byte, i int, q byte) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			if q == '"' {
				i++
			}
		case q:
			return i
		case '\n':
			return i - 1
		}
	}
	return len(b) - 1
}

// scanYAML bounds the nesting of a YAML document: the indentation levels
// open at a line, the compact collections started on it ("- - x", "? "),
// and flow collections ([...] and {...}, which may span lines). Block
// scalar content (after | or >) and comments are skipped; quoted scalars
// are skipped wherever a value starts. It bounds the number of values too
// (MaxYAMLValues), counting each line holding content, each indicator
// (-, ?, :) and, in flow collections, each opening, comma and colon:
// about as many as the nodes the parser makes, aliases aside (see
// yamlSize).
func scanYAML(b []byte) *LimitError {
	_, le := countYAML(b)
	return le
}

// countYAML is scanYAML, also returning the number of values counted.
func countYAML(b []byte) (int, *LimitError) {
	values := 0
	count := func(i int) *LimitError {
		values++
		if values > MaxYAMLValues {
			return valuesError(b, i, MaxYAMLValues, "nodes: lines, items, keys, elements")
		}
		return nil
	}
	var indents []int
	flow := 0
	scalarIndent := -1 // the indent of the line that opened a block scalar
	for start := 0; start < len(b); {
		end := start
		for end < len(b) && b[end] != '\n' {
			end++
		}
		next := end + 1
		ind := 0
		for start+ind < end && b[start+ind] == ' ' {
			ind++
		}
		i := start + ind
		blank := i == end || b[i] == '#' || (b[i] == '\r' && i+1 == end)
		if flow == 0 {
			if scalarIndent >= 0 && (blank || ind > scalarIndent) {
				start = next
				continue
			}
			scalarIndent = -1
			if blank {
				start = next
				continue
			}
			for len(indents) > 0 && indents[len(indents)-1] >= ind {
				indents = indents[:len(indents)-1]
			}
			indents = append(indents, ind)
			if le := count(i); le != nil {
				return values, le
			}
		}
		depth := len(indents)
		if depth+flow > MaxConfigDepth {
			return values, depthError(b, i, "collections")
		}
		valueStart := true
		for ; i < end; i++ {
			c := b[i]
			if flow > 0 {
				switch c {
				case '[', '{':
					flow++
					if depth+flow > MaxConfigDepth {
						return values, depthError(b, i, "flow collections")
					}
					if le := count(i); le != nil {
						return values, le
					}
				case ',':
					if le := count(i); le != nil {
						return values, le
					}
				case ':':
					if i+1 == end || b[i+1] == ' ' || b[i+1] == '\t' || b[i+1] == ',' {
						if le := count(i); le != nil {
							return values, le
						}
					}
				case ']', '}':
					flow--
				case '"', '\'':
					i = skipQuoted(b, i, c)
					if i >= end {
						// The string went on to later lines.
						end = i
						for end < len(b) && b[end] != '\n' {
							end++
						}
						next = end + 1
					}
				case '#':
					if i == start || b[i-1] == ' ' || b[i-1] == '\t' {
						i = end
					}
				}
				continue
			}
			switch {
			case c == ' ' || c == '\t':
				continue
			case c == '#' && (i == start || b[i-1] == ' ' || b[i-1] == '\t'):
				i = end
				continue
			case valueStart && (c == '-' || c == '?' || c == ':') && (i+1 == end || b[i+1] == ' ' || b[i+1] == '\t'):
				depth++
				if depth > MaxConfigDepth {
					return values, depthError(b, i, "collections")
				}
				if le := count(i); le != nil {
					return values, le
				}
				continue
			case valueStart && (c == '[' || c == '{'):
				flow++
				if depth+flow > MaxConfigDepth {
					return values, depthError(b, i, "flow collections")
				}
				if le := count(i); le != nil {
					return values, le
				}
				continue
			case valueStart && (c == '"' || c == '\''):
				i = skipQuoted(b, i, c)
				if i >= end {
					end = i
					for end < len(b) && b[end] != '\n' {
						end++
					}
					next = end + 1
				}
				valueStart = false
				continue
			case valueStart && (c == '|' || c == '>'):
				scalarIndent = ind
				i = end
				continue
			case valueStart && (c == '&' || c == '!'):
				// An anchor or a tag: the value follows it.
				for i < end && b[i] != ' ' && b[i] != '\t' {
					i++
				}
				continue
			case c == ':' && (i+1 == end || b[i+1] == ' ' || b[i+1] == '\t' || b[i+1] == '\r'):
				valueStart = true
				if le := count(i); le != nil {
					return values, le
				}
				continue
			}
			valueStart = false
		}
		start = next
	}
	return values, nil
}
