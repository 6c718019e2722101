package interpret

import (
	"reflect"
	"strings"
	"testing"
)

// fill sets every exported string of v, reached through pointers, slices
// and structs, to s, making slices of two elements and allocating
// pointers on the way.
func fill(v reflect.Value, s string, depth int) {
	if depth > 9 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Pointer:
		if v.Type().Elem().PkgPath() != reflect.TypeFor[Report]().PkgPath() {
			return // types of other packages, such as the counterexample's history
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s, depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fill(v.Index(i), s, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), s, depth+1)
			}
		}
	}
}

// raw returns the path of a string of v that holds s.
func raw(v reflect.Value, s, path string) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return path, strings.Contains(v.String(), s)
	case reflect.Pointer:
		if v.IsNil() {
			return "", false
		}
		return raw(v.Elem(), s, path)
	case reflect.Slice:
		for i := range v.Len() {
			if p, ok := raw(v.Index(i), s, path+"[i]"); ok {
				return p, true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				if p, ok := raw(v.Field(i), s, path+"."+f.Name); ok {
					return p, true
				}
			}
		}
	}
	return "", false
}

// TestEscapedCoversEveryString guards escaped against fields added later:
// a report whose every string holds an escape sequence has none left in
// its escaped copy, and is itself unchanged.
func TestEscapedCoversEveryString(t *testing.T) {
	const evil = "x\x1b[2J\u202e"
	r := &Report{}
	fill(reflect.ValueOf(r).Elem(), evil, 0)
	e := r.escaped()
	if p, ok := raw(reflect.ValueOf(e), "\x1b", "Report"); ok {
		t.Errorf("escaped left %s raw", p)
	}
	if p, ok := raw(reflect.ValueOf(e), "\u202e", "Report"); ok {
		t.Errorf("escaped left a bidi override in %s", p)
	}
	if r.Anomaly.Txns[0].Ops[0].Key != evil || r.Anomaly.Cycles[0][0].BecauseCycle[0].Reason != evil {
		t.Errorf("escaped changed the report it copied")
	}
}
