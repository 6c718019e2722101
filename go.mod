module github.com/isocheck/isocheck

go 1.26.8

require github.com/go-air/gini v1.0.4

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/schollz/progressbar/v3 v3.18.0
	golang.org/x/term v0.28.0
	olympos.io/encoding/edn v0.0.0-20201019073823-d3554ca0b0a3
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
