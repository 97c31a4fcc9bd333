package render

import (
	"reflect"
	"strings"
)

// emptySlices returns v with every nil slice it holds, in a struct field
// that is always written (no omitempty), in a slice or behind a pointer or
// interface, made empty: the JSON of a report writes "usage": [] where
// there are no rows, never null, and never leaves the key out. The
// reports' own values are changed, not copied: a report is plain data,
// written once.
func emptySlices(v any) any {
	if v == nil {
		return v
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		// A value: copy it where it can be set.
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		fill(p.Elem(), 0)
		return p.Interface()
	}
	fill(rv, 0)
	return v
}

// maxFillDepth bounds the walk: reports nest a few levels, never a cycle.
const maxFillDepth = 64

func fill(v reflect.Value, depth int) {
	if depth > maxFillDepth {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && e.Kind() != reflect.Pointer {
				return // a value in an interface cannot be set in place
			}
			fill(e, depth+1)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f, fv := t.Field(i), v.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && opts == "" {
				continue
			}
			if fv.Kind() == reflect.Slice && fv.IsNil() {
				if !hasOpt(opts, "omitempty") && fv.CanSet() && fv.Type().Elem().Kind() != reflect.Uint8 {
					fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
				}
				continue
			}
			fill(fv, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte is a string in JSON
		}
		for i := 0; i < v.Len(); i++ {
			e := v.Index(i)
			if e.Kind() == reflect.Slice && e.IsNil() && e.CanSet() {
				e.Set(reflect.MakeSlice(e.Type(), 0, 0))
				continue
			}
			fill(e, depth+1)
		}
	}
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}
