module github.com/isocheck/isocheck

go 1.26.8

require github.com/go-air/gini v1.0.4

require github.com/anishathalye/porcupine v1.3.1
