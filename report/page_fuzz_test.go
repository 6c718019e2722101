package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/verdict"
)

// hostilePage returns a page of one anomaly, two transactions and two
// edges, with s in every string it holds (the pictures' included).
func hostilePage(s string) *Page {
	p := &Page{
		Levels: []Level{{Verdict: verdict.Violated}, {Verdict: verdict.Unknown}},
		Anomalies: []Anomaly{{
			Count: 1,
			Graph: &draw.Graph{
				Caption: []string{""},
				Lanes:   []draw.Lane{{Nodes: []draw.Node{{Lines: []draw.Line{{{}}}}}}, {Nodes: []draw.Node{{}}}},
				Edges:   []draw.Edge{{}},
				Notes:   []string{""},
			},
			Timeline: &draw.Timeline{Caption: []string{""}, Lanes: []draw.TimelineLane{{Ops: []draw.Interval{{}}}}, Notes: []string{""}},
			Txns:     []Txn{{Ops: []draw.Line{{{}, {Mark: true}}}}, {Position: 3, Ops: []draw.Line{{{}}}}},
			Edges:    []Edge{{}, {Assumed: true}},
		}},
		Facts: []Fact{{}},
		Run: &Run{
			Duration:     time.Second,
			AbortReasons: map[string]int{},
			Faults:       []string{""},
			OverTime:     &draw.Chart{Series: []draw.Series{{Points: []draw.Point{{X: 1, Y: 2}}}}, Marks: []draw.Mark{{}}},
		},
		Notes: []string{""},
	}
	fill(reflect.ValueOf(p).Elem(), s)
	p.Run.AbortReasons[s] = 1
	return p
}

// fill sets every string under v to s.
func fill(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Pointer:
		if !v.IsNil() {
			fill(v.Elem(), s)
		}
	case reflect.Slice:
		for i := range v.Len() {
			fill(v.Index(i), s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), s)
		}
	}
}

func FuzzPageHTML(f *testing.F) {
	for _, s := range []string{
		"",
		"<script>alert(1)</script>",
		`"><img src=x onerror=alert(1)>`,
		"'; background:url(https://example.com/x)",
		"</style><script>alert(1)</script>",
		"</title><iframe src=//x>",
		"]]><!-- --><![CDATA[",
		"<svg onload=alert(1)>",
		"javascript:alert(1)",
		"\x00\x01\x1b[31mred\x7f\u0085\u202eevil\u2028",
		"\xff\xfe\xc0\x80 invalid",
		"line\nbreak\ttab\r\n",
		strings.Repeat("<&\"'>", 64<<10/5),
		strings.Repeat("\xff", 64<<10),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		if err := hostilePage(s).WriteHTML(&buf); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
		if buf.Len() >= 3<<20 {
			t.Fatalf("the page takes %d bytes, want under 3 MiB", buf.Len())
		}
		doc, err := parsePage(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if got := len(find(doc, "section", "anomaly")); got != 1 {
			t.Errorf("%d anomaly sections, want 1", got)
		}
		if got := len(find(doc, "tr", "txn")); got != 2 {
			t.Errorf("%d transactions, want 2", got)
		}
		if got := len(find(doc, "tr", "edge")); got != 2 {
			t.Errorf("%d edges, want 2", got)
		}
	})
}
