package edn_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/isocheck/isocheck/internal/edn"
)

// A Jepsen history, read one operation at a time: the elements of the
// history vector are decoded one by one, without holding the vector.
func Example() {
	const history = `[{:type :invoke, :f :txn, :value [[:append :x 1] [:r :y nil]], :process 0, :index 0}
 #jepsen.history.Op{:type :ok, :f :txn, :value [[:append :x 1] [:r :y [2]]], :process 0, :index 1}
 {:type :info, :f :kill, :process :nemesis, :index 2}]`
	d := edn.NewDecoder(strings.NewReader(history))
	if ok, err := d.OpenSeq(); !ok || err != nil {
		fmt.Println("not a vector:", err)
		return
	}
	for d.More() {
		v, err := d.Decode()
		if err != nil {
			fmt.Println(err)
			return
		}
		if t, ok := v.(edn.Tagged); ok {
			v = t.Value // a record: its map
		}
		op := v.(edn.Map)
		typ, _ := op.Get(edn.Keyword("type"))
		process, _ := op.Get(edn.Keyword("process"))
		value, _ := op.Get(edn.Keyword("value"))
		fmt.Printf("line %d: %v by %v: %v\n", d.Pos().Line, typ, process, value)
	}
	if err := d.CloseSeq(); err != nil {
		fmt.Println(err)
	}
	_, err := d.Decode()
	fmt.Println(err == io.EOF)
	// Output:
	// line 1: :invoke by 0: [[:append :x 1] [:r :y <nil>]]
	// line 2: :ok by 0: [[:append :x 1] [:r :y [2]]]
	// line 3: :info by :nemesis: <nil>
	// true
}
