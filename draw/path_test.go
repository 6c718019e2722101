package draw

import "testing"

func TestRectCrosses(t *testing.T) {
	r := rect{10, 10, 20, 10}
	tests := []struct {
		name string
		a, b pt
		want bool
	}{
		{"through", pt{0, 15}, pt{40, 15}, true},
		{"inside", pt{12, 12}, pt{14, 14}, true},
		{"ends on an edge", pt{10, 0}, pt{10, 10}, true},
		{"above", pt{0, 5}, pt{40, 5}, false},
		{"stops short", pt{0, 15}, pt{9, 15}, false},
		{"diagonal past a corner", pt{0, 19}, pt{11, 30}, false},
		{"diagonal through a corner", pt{0, 10}, pt{20, 30}, true},
		{"a point inside", pt{15, 15}, pt{15, 15}, true},
	}
	for _, tt := range tests {
		if got := r.crosses(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: crosses(%v, %v) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCubicStraight(t *testing.T) {
	line := rounded([]pt{{0, 0}, {100, 0}}, 10)[0]
	if !line.straight() {
		t.Errorf("%v is a line but not straight", line)
	}
	corner := rounded([]pt{{0, 0}, {100, 0}, {100, 100}}, 10)[1]
	if corner.straight() {
		t.Errorf("the rounded corner %v is straight", corner)
	}
}

func TestLabelPlacesPreferLongestStraightPiece(t *testing.T) {
	r := &route{curve: rounded([]pt{{0, 0}, {40, 0}, {40, 200}, {300, 200}}, 10)}
	centred, _ := labelPlaces(r, 30, 16)
	c := pt{centred[0].X + 15, centred[0].Y + 8}
	if want := (pt{(50 + 300) / 2, 200}); dist(c, want) > 1 {
		t.Errorf("first place centred at %v, want the middle of the longest leg %v", c, want)
	}
}
