package sqljsonl_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/isocheck/isocheck/format/sqljsonl"
)

func ExampleRead() {
	in := `{"init": [{"table": "kv", "key": 1, "id": "init-1", "row": {"k": 1, "v": 0}}]}
{"session": 0, "id": "t1", "level": "SER", "events": [{"select": "kv", "where": "k = 1 OR v > 3", "rows": [{"key": 1, "id": "init-1"}]}, {"update": "kv", "where": "v < 3", "rows": [{"key": 1, "read": "init-1", "id": "t1-b", "row": {"k": 1, "v": 3}}]}]}
{"session": 1, "level": "read committed", "events": [{"delete": "kv", "rows": [{"key": 1, "read": "t1-b", "id": "gone"}]}]}
`
	h, err := sqljsonl.Read(strings.NewReader(in), "example.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	for i, t := range h.Txns {
		fmt.Printf("%s (session %d, %v, %v):\n", h.TxnName(i), t.Session, t.Level, t.Status)
		for _, e := range t.Events {
			fmt.Printf("  %v %s", e.Kind, e.Table)
			if e.Where != nil {
				fmt.Printf(" where %v", e.Where)
			}
			fmt.Print(":")
			for _, v := range e.Reads {
				fmt.Printf(" read %s", h.VersionString(v))
			}
			for _, v := range e.Writes {
				fmt.Printf(" wrote %s", h.VersionString(v))
			}
			fmt.Println()
		}
	}
	if err := sqljsonl.Write(os.Stdout, h); err != nil {
		log.Fatal(err)
	}

	_, err = sqljsonl.Read(strings.NewReader(`{"session": 0, "level": "SER", "events": [{"update": "kv", "rows": [{"key": 1, "id": "x", "row": {}}]}]}`), "bad.jsonl")
	fmt.Println(err)
	// Output:
	// t1 (session 0, SER, committed):
	//   select kv where k = 1 OR v > 3: read kv/1@init-1 {k: 1, v: 0}
	//   update kv where v < 3: read kv/1@init-1 {k: 1, v: 0} wrote kv/1@t1-b {k: 1, v: 3}
	// T1 (session 1, RC, committed):
	//   delete kv: read kv/1@t1-b {k: 1, v: 3} wrote kv/1@gone (deleted)
	// {"init":[{"table":"kv","key":1,"id":"init-1","row":{"k":1,"v":0}}]}
	// {"session":0,"id":"t1","level":"SER","events":[{"select":"kv","where":"k = 1 OR v > 3","rows":[{"key":1,"id":"init-1"}]},{"update":"kv","where":"v < 3","rows":[{"key":1,"read":"init-1","id":"t1-b","row":{"k":1,"v":3}}]}]}
	// {"session":1,"id":"T1","level":"RC","events":[{"delete":"kv","rows":[{"key":1,"read":"t1-b","id":"gone"}]}]}
	// bad.jsonl:1: column 69: events[0].rows[0]: an update's row needs "read", the version it matched
}
