package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// intArgs are each tool's integer arguments, by the name the client
// writes (noted by addTool from the tool's input type).
var intArgs sync.Map // tool name -> map[string]bool

// noteIntArgs notes the integer fields of In, a tool's input struct.
func noteIntArgs[In any](tool string) {
	t := reflect.TypeFor[In]()
	if t.Kind() != reflect.Struct {
		return
	}
	names := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
	}
	intArgs.Store(tool, names)
}

// plainNumbers answers a call whose arguments hold a number no tool can
// read (one past a float64's range, 1e400; or one past an int64's for an
// integer argument, 1e300) with a tool error naming the argument and the
// number as written, before the SDK would word it by Go's types ("cannot
// unmarshal ... into Go struct field map[string]interface {}.days of type
// float64"). The tools judge every number in range, as before.
func plainNumbers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil || len(call.Params.Arguments) == 0 {
			return next(ctx, method, req)
		}
		ints := map[string]bool{}
		if v, ok := intArgs.Load(call.Params.Name); ok {
			ints = v.(map[string]bool)
		}
		if err := numbersInRange(call.Params.Arguments, ints); err != nil {
			return errorResult(err), nil
		}
		return next(ctx, method, req)
	}
}

// numbersInRange checks the numbers of args (a JSON value), those of the
// top-level members named in ints as integers. Arguments that are not
// valid JSON are the SDK's to refuse.
func numbersInRange(args json.RawMessage, ints map[string]bool) error {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return walkNumbers(v, "", 0, ints)
}

func walkNumbers(v any, path string, depth int, ints map[string]bool) error {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return fmt.Errorf("%s is %s, a number too large to read", argPath(path), textsafe.Cut(string(x), 40))
		}
		if depth == 1 && ints[path] && math.Abs(f) >= 1<<63 {
			return fmt.Errorf("%s is %s, a number too large for a count", argPath(path), textsafe.Cut(string(x), 40))
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if err := walkNumbers(x[k], p, depth+1, ints); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := walkNumbers(e, path+"["+strconv.Itoa(i)+"]", depth+1, ints); err != nil {
				return err
			}
		}
	}
	return nil
}

// argPath names an argument for a message: cut, escaped.
func argPath(p string) string {
	if p == "" {
		return "the arguments"
	}
	return textsafe.Cut(p, 80)
}
