package format_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/progress"
)

func ExampleRead() {
	in := `{"session": 0, "id": "t1", "ops": [["w", "x", 1], ["w", "y", "hello"]], "start": 10, "end": 20}
{"session": 1, "id": "t2", "ops": [["r", "x", 1], ["r", "y", null]]}
`
	h, err := format.Read(strings.NewReader(in), "example.jsonl", format.JSONL)
	if err != nil {
		log.Fatal(err)
	}
	for t := range h.Txns {
		fmt.Printf("%s (session %s, %s):", h.Name(t), h.SessionName(int(h.Txns[t].Session)), h.Where(t))
		for _, op := range h.OpsOf(t) {
			fmt.Printf(" %v(%s,%s)", op.Kind, h.FormatKey(op.Key), h.FormatValue(op.Value))
		}
		fmt.Println()
	}
	// Output:
	// t1 (session 0, example.jsonl:1): w(x,1) w(y,"hello")
	// t2 (session 1, example.jsonl:2): r(x,1) r(y,null)
}

func ExampleRead_error() {
	in := "w(0,1,1,1)\nw(0,2,1)\n"
	_, err := format.Read(strings.NewReader(in), "galera.txt", format.Text)
	fmt.Println(err)
	var e *scan.Error
	if errors.As(err, &e) {
		fmt.Println("line", e.Line)
	}
	// Output:
	// galera.txt:2: expected r(key,value,session,txn) or w(key,value,session,txn), got "w(0,2,1)" (too few fields)
	// line 2
}

func ExampleReadFile() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "history.txt")
	text := "w(1,1,0,0)\nw(2,1,0,0)\nr(1,1,1,1)\nr(2,0,1,1)\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}

	// Auto detects PolySI's text format.
	h, info, err := format.ReadFileInfo(path, format.Auto)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d transactions, %d sessions, %d keys, initial value %s\n",
		info.Format, len(h.Txns), len(h.Sessions), h.NumKeys(), h.FormatValue(h.Init))

	// Convert it to the native format.
	if err := format.Write(os.Stdout, h, format.JSONL); err != nil {
		log.Fatal(err)
	}
	// Output:
	// text: 2 transactions, 2 sessions, 2 keys, initial value 0
	// {"session":0,"id":"0","ops":[["w",1,1],["w",2,1]]}
	// {"session":1,"id":"1","ops":[["r",1,1],["r",2,null]]}
}

func ExampleReadContext() {
	// An endless input: reading stops when the context ends.
	line := strings.Repeat(`{"session":0,"ops":[["w","x",1]]}`+"\n", 1000)
	r, w := io.Pipe()
	go func() {
		for {
			if _, err := io.WriteString(w, line); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := format.ReadContext(ctx, r, "endless.jsonl", format.JSONL)
	r.Close()
	var e *scan.Error
	fmt.Println(progress.Stopped(err), errors.Is(err, context.DeadlineExceeded), errors.As(err, &e))
	// Output:
	// true true false
}
