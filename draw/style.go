// The strokes of the kinds of dependency, and their legend.

package draw

// edgeStyle is how an edge of a kind is stroked.
type edgeStyle struct {
	color string
	width float64
	dash  []float64
	// meaning is the kind's line in the legend.
	meaning string
}

// styleOf is the stroke of kind; the colours differ in luminance too, so
// the kinds stay apart in grey-scale print.
func styleOf(kind string) edgeStyle {
	switch kind {
	case SO:
		return edgeStyle{"#555555", 2.6, nil, "SO: A ran before B in its session"}
	case WR:
		return edgeStyle{"#0f5c1a", 1.7, nil, "WR: B read A's write"}
	case WW:
		return edgeStyle{"#2f7fe8", 1.7, nil, "WW: B overwrote A's write"}
	case RW:
		return edgeStyle{"#fa6450", 1.7, nil, "RW: B overwrote the version A read"}
	case RT:
		return edgeStyle{"#7e3fbf", 1.7, []float64{2, 3}, "RT: A ended before B started"}
	}
	if kind == "" {
		kind = "unnamed"
	}
	return edgeStyle{"#9ca3af", 1.5, nil, kind + ": B depends on A"}
}

// dashOf is the dash pattern of an edge of kind, dashed or not.
func dashOf(kind string, dashed bool) []float64 {
	st := styleOf(kind)
	if !dashed {
		return st.dash
	}
	if st.dash != nil {
		return []float64{7, 3, 2, 3}
	}
	return []float64{7, 4}
}

// darker is c with its channels at two thirds, for text on white.
func darker(c string) string {
	n := parseColor(c)
	const hex = "0123456789abcdef"
	out := []byte{'#'}
	for _, v := range []uint8{n.R, n.G, n.B} {
		v = uint8(int(v) * 2 / 3)
		out = append(out, hex[v>>4], hex[v&15])
	}
	return string(out)
}

// lighter is c half way to white: what a picture fades its context to.
func lighter(c string) string {
	n := parseColor(c)
	const hex = "0123456789abcdef"
	out := []byte{'#'}
	for _, v := range []uint8{n.R, n.G, n.B} {
		v = uint8((int(v) + 255) / 2)
		out = append(out, hex[v>>4], hex[v&15])
	}
	return string(out)
}
