package canon

import (
	"bytes"
	"unsafe"
)

// Transform returns JSON.stringify(JSON.parse(data)): the canonical form of
// data, or a *SyntaxError.
//
// It writes the output while it parses, copying strings and numbers that
// are already canonical. Only an object with a duplicate key or an
// array-index key, whose members must be reordered, goes through a parsed
// tree.
func Transform(data []byte) ([]byte, error) {
	// The trees of such objects live only until they are written, so
	// their strings may point into data.
	p := parser{data: data, alias: true}
	p.ws()
	out, err := p.emit(make([]byte, 0, len(data)))
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(p.data) {
		return nil, p.unexpected(p.pos, " after the top-level value")
	}
	return out, nil
}

// span is the position of a written key in the output, between the quotes.
type span struct{ start, end int }

// emit writes the canonical form of the value at p.pos to out.
func (p *parser) emit(out []byte) ([]byte, error) {
	if p.pos >= len(p.data) {
		return out, p.unexpected(p.pos, "")
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.emitObject(out)
	case '[':
		return p.emitArray(out)
	case '"':
		return p.emitString(out)
	case 't', 'f', 'n':
		v, err := p.value()
		if err != nil {
			return out, err
		}
		return Append(out, v), nil
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			start := p.pos
			f, verbatim, err := p.scanNumber()
			if err != nil {
				return out, err
			}
			if verbatim {
				return append(out, p.data[start:p.pos]...), nil
			}
			return AppendNumber(out, f), nil
		}
		return out, p.unexpected(p.pos, "")
	}
}

func (p *parser) emitString(out []byte) ([]byte, error) {
	start := p.pos
	dec, wtf, verbatim, err := p.scanString()
	if err != nil {
		return out, err
	}
	if verbatim {
		return append(out, p.data[start:p.pos]...), nil
	}
	return appendString(out, unsafe.String(unsafe.SliceData(dec), len(dec)), wtf), nil
}

func (p *parser) emitArray(out []byte) ([]byte, error) {
	if err := p.enter(); err != nil {
		return out, err
	}
	p.pos++
	out = append(out, '[')
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return append(out, ']'), nil
	}
	for {
		var err error
		if out, err = p.emit(out); err != nil {
			return out, err
		}
		p.ws()
		if p.pos >= len(p.data) {
			return out, p.unexpected(p.pos, "")
		}
		if c := p.data[p.pos]; c == ']' {
			p.pos++
			break
		} else if c != ',' {
			return out, p.unexpected(p.pos, " in array (expected ',' or ']')")
		}
		p.pos++
		out = append(out, ',')
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			return out, p.errAt(p.pos, "trailing comma before ']'")
		}
	}
	p.depth--
	return append(out, ']'), nil
}

// emitObject writes the object at p.pos as it parses it. Keys are compared
// in their written form, which is a one-to-one encoding of their value.
// When a key repeats or is an array index, the object is parsed again from
// its start into a tree, which puts its members in canonical order.
func (p *parser) emitObject(out []byte) ([]byte, error) {
	objStart, objPos, objDepth := len(out), p.pos, p.depth
	if err := p.enter(); err != nil {
		return out, err
	}
	p.pos++
	out = append(out, '{')
	first := len(p.spans)
	var index map[string]struct{}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return append(out, '}'), nil
	}
	for {
		if p.pos >= len(p.data) {
			return out, p.unexpected(p.pos, "")
		}
		if p.data[p.pos] != '"' {
			return out, p.unexpected(p.pos, " in object (expected a string key)")
		}
		ks := len(out) + 1
		var err error
		if out, err = p.emitString(out); err != nil {
			return out, err
		}
		k := span{ks, len(out) - 1}
		key := out[k.start:k.end]
		reorder := len(key) > 0 && key[0] >= '0' && key[0] <= '9'
		if reorder {
			_, reorder = arrayIndex(unsafe.String(unsafe.SliceData(key), len(key)))
		}
		if !reorder && index != nil {
			_, reorder = index[string(key)]
		} else if !reorder {
			for _, o := range p.spans[first:] {
				if bytes.Equal(out[o.start:o.end], key) {
					reorder = true
					break
				}
			}
		}
		if reorder {
			p.spans = p.spans[:first]
			p.pos, p.depth = objPos, objDepth
			v, err := p.value()
			if err != nil {
				return out, err
			}
			return Append(out[:objStart], v), nil
		}
		p.spans = append(p.spans, k)
		// The map's keys point into out. Written bytes before the
		// end of out never change: a rewind only cuts back to the start
		// of a nested object, and growing out copies it.
		if index != nil {
			index[unsafe.String(unsafe.SliceData(key), len(key))] = struct{}{}
		} else if len(p.spans)-first > linearKeys {
			index = make(map[string]struct{}, 2*linearKeys)
			for _, o := range p.spans[first:] {
				index[unsafe.String(&out[o.start], o.end-o.start)] = struct{}{}
			}
		}
		p.ws()
		if p.pos >= len(p.data) {
			return out, p.unexpected(p.pos, "")
		}
		if p.data[p.pos] != ':' {
			return out, p.unexpected(p.pos, " in object (expected ':' after the key)")
		}
		p.pos++
		out = append(out, ':')
		p.ws()
		if out, err = p.emit(out); err != nil {
			return out, err
		}
		p.ws()
		if p.pos >= len(p.data) {
			return out, p.unexpected(p.pos, "")
		}
		if c := p.data[p.pos]; c == '}' {
			p.pos++
			break
		} else if c != ',' {
			return out, p.unexpected(p.pos, " in object (expected ',' or '}')")
		}
		p.pos++
		out = append(out, ',')
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			return out, p.errAt(p.pos, "trailing comma before '}'")
		}
	}
	p.spans = p.spans[:first]
	p.depth--
	return append(out, '}'), nil
}
