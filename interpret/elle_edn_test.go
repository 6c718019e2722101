package interpret

import (
	"reflect"
	"testing"

	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/verdict"
)

// TestElleMapMarshalEDN checks the EDN form of a result map: Elle's
// keywords, sets, and names and values as integers, keywords or strings,
// strings escaped so that they read back as they were.
func TestElleMapMarshalEDN(t *testing.T) {
	key := verdict.ID(":x")
	op := ElleOp{
		Name: "T\"1\"", Index: 3, Source: "h.edn:4", Process: "18446744073709551615", Type: "info",
		Value: [][]any{{"append", verdict.ID(":x"), IntValue(5)}, {"r", verdict.ID("a\nb"), ListValue([]Value{IntValue(1), StringValue(":ok")})}},
	}
	m := &ElleMap{
		Valid:        "unknown",
		AnomalyTypes: []string{"G1a", "incompatible-order"},
		Anomalies: map[string][]ElleCase{
			"incompatible-order": {{Key: &key, Values: []Value{ListValue(nil), ListValue([]Value{StringValue("..."), NullValue()})}}},
			"G1a":                {{Op: &op, Mop: op.Value[0], Writer: &op, Element: IntValue(5), Duplicates: map[string]int{"7": 2, `"s"`: 3}}},
		},
		Not:     []string{"read-committed"},
		AlsoNot: []string{"serializable", "snapshot-isolation"},
	}
	b, err := m.MarshalEDN()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{:valid? :unknown, :anomaly-types [:G1a :incompatible-order], ` +
		`:anomalies {:G1a [{:op {:type :info, :f :txn, :value [[:append :x 5] [:r "a\nb" [1 :ok]]], :process 18446744073709551615, :index 3, :name "T\"1\"", :source "h.edn:4"}, ` +
		`:mop [:append :x 5], ` +
		`:writer {:type :info, :f :txn, :value [[:append :x 5] [:r "a\nb" [1 :ok]]], :process 18446744073709551615, :index 3, :name "T\"1\"", :source "h.edn:4"}, ` +
		`:element 5, :duplicates {"\"s\"" 3, 7 2}}], ` +
		`:incompatible-order [{:key :x, :values [[] ["..." nil]]}]}, ` +
		`:not #{:read-committed}, :also-not #{:serializable :snapshot-isolation}}`
	if string(b) != want {
		t.Errorf("MarshalEDN:\n%s\nwant\n%s", b, want)
	}
	v, err := edn.NewDecoderBytes(b).Decode()
	if err != nil {
		t.Fatalf("the EDN does not read back: %v", err)
	}
	got := v.(edn.Map)
	ops, _ := got.Get(edn.Keyword("anomalies"))
	g1a, _ := ops.(edn.Map).Get(edn.Keyword("G1a"))
	o, _ := g1a.([]any)[0].(edn.Map).Get(edn.Keyword("op"))
	name, _ := o.(edn.Map).Get(edn.Keyword("name"))
	proc, _ := o.(edn.Map).Get(edn.Keyword("process"))
	if name != op.Name || proc != edn.BigInt("18446744073709551615") {
		t.Errorf("read back :name %#v and :process %#v, want %q and the integer %s", name, proc, op.Name, op.Process)
	}
	notSet, _ := got.Get(edn.Keyword("not"))
	if !reflect.DeepEqual(notSet, edn.Set{edn.Keyword("read-committed")}) {
		t.Errorf(":not read back as %#v", notSet)
	}
}

// TestElleMapMarshalEDNValid checks the maps of satisfied and violated
// histories, through ElleResult, against the JSON form's keys.
func TestElleMapMarshalEDNValid(t *testing.T) {
	for _, tt := range []struct {
		m    *ElleMap
		want string
	}{
		{&ElleMap{Valid: true}, "{:valid? true}"},
		{&ElleMap{Valid: false, Not: []string{"read-committed"}}, "{:valid? false, :not #{:read-committed}}"},
		{ElleResult(nil, nil, true), "{:valid? true}"},
	} {
		b, err := tt.m.MarshalEDN()
		if err != nil || string(b) != tt.want {
			t.Errorf("MarshalEDN(%+v) = %s, %v; want %s", tt.m, b, err, tt.want)
		}
	}
	// A name that is no keyword cannot be one.
	if _, err := (&ElleMap{Valid: false, AnomalyTypes: []string{"bad name"}}).MarshalEDN(); err == nil {
		t.Error("MarshalEDN of the anomaly type \"bad name\": no error")
	}
}
