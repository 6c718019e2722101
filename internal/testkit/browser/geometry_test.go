package browser

import "testing"

func TestOverlaps(t *testing.T) {
	box := func(name string, x, y, w, h float64) Box {
		return Box{Text: name, X: x, Y: y, Width: w, Height: h}
	}
	tests := []struct {
		name  string
		boxes []Box
		want  [][2]string
	}{
		{"apart", []Box{box("a", 0, 0, 10, 10), box("b", 20, 0, 10, 10)}, nil},
		{"touching", []Box{box("a", 0, 0, 10, 10), box("b", 10, 0, 10, 10)}, nil},
		{"within a pixel", []Box{box("a", 0, 0, 10, 10), box("b", 9.2, 0, 10, 10)}, nil},
		{"side by side, overlapping across only", []Box{box("a", 0, 0, 10, 10), box("b", 5, 10, 10, 10)}, nil},
		{"crossing", []Box{box("a", 0, 0, 10, 10), box("b", 5, 5, 10, 10)}, [][2]string{{"a", "b"}}},
		{"one inside another", []Box{box("a", 0, 0, 100, 100), box("b", 40, 40, 5, 5)}, [][2]string{{"a", "b"}}},
		{"three, two pairs", []Box{box("a", 0, 0, 10, 10), box("b", 50, 50, 10, 10), box("c", 5, 5, 50, 50)},
			[][2]string{{"a", "c"}, {"b", "c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][2]string
			for _, p := range Overlaps(tt.boxes) {
				got = append(got, [2]string{p[0].Text, p[1].Text})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Overlaps = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("Overlaps = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestWithin(t *testing.T) {
	outer := Box{X: 10, Y: 10, Width: 100, Height: 50}
	tests := []struct {
		name  string
		inner Box
		want  bool
	}{
		{"inside", Box{X: 20, Y: 20, Width: 10, Height: 10}, true},
		{"the same", outer, true},
		{"a fraction of a pixel over", Box{X: 9.5, Y: 10, Width: 101, Height: 50}, true},
		{"over the right edge", Box{X: 100, Y: 20, Width: 20, Height: 10}, false},
		{"above", Box{X: 20, Y: 0, Width: 10, Height: 5}, false},
		{"over the bottom", Box{X: 20, Y: 50, Width: 10, Height: 20}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Within(tt.inner, outer); got != tt.want {
				t.Errorf("Within(%s, %s) = %v, want %v", rect(tt.inner), rect(outer), got, tt.want)
			}
		})
	}
}
