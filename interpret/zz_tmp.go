package interpret

import (
	"context"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/history"
)

func (r *Report) Graph() *draw.Graph { return nil }
func FoundReports(ctx context.Context, h *history.History, res *check.Result, rep *Report) ([]*Report, error) {
	return nil, nil
}
