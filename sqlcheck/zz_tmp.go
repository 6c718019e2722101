package sqlcheck

import "github.com/isocheck/isocheck/draw"

func (r *Result) Graph() *draw.Graph { return nil }
