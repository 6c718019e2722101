package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/level"
)

// Consistent checks TPC-C's consistency conditions 1 to 4 (clause 3.3.2)
// on the tables a run left in d (their names prefixed by prefix, as
// sqlrun.Config.Prefix): the warehouse's year-to-date is its districts'
// sum; a district's next order id is one past its largest order's, which
// is its largest new order's; a district's new orders have consecutive
// ids; and its orders' line counts add up to its order lines. A
// serializable run keeps them; TPC-C's transactions keep them at weaker
// levels too, whose updates add to the values they update.
func Consistent(ctx context.Context, d db.SQLDatabase, prefix string) error {
	conn, err := d.Conn(ctx, -1)
	if err != nil {
		return err
	}
	defer conn.Close()
	t, err := conn.Begin(ctx, level.SER)
	if err != nil {
		return err
	}
	defer t.Rollback(ctx)
	query := func(q string, args ...any) ([][]int64, error) {
		res, err := t.Query(ctx, fmt.Sprintf(q, args...))
		if err != nil {
			return nil, err
		}
		var out [][]int64
		for _, r := range res.Rows {
			var row []int64
			for _, x := range r {
				switch x := x.(type) {
				case int64:
					row = append(row, x)
				case int32:
					row = append(row, int64(x))
				case nil:
					row = append(row, 0)
				default:
					return nil, fmt.Errorf("tpcc: %s: a %T", q, x)
				}
			}
			out = append(out, row)
		}
		return out, nil
	}
	name := func(t string) string { return `"` + prefix + t + `"` }
	var errs []error
	type dk struct{ w, d int64 }
	warehouses, err := query("SELECT w_id, w_ytd FROM %s", name(Warehouse))
	if err != nil {
		return err
	}
	districts, err := query("SELECT d_w_id, d_id, d_ytd, d_next_o_id FROM %s", name(District))
	if err != nil {
		return err
	}
	orders, err := query("SELECT o_w_id, o_d_id, o_id, o_ol_cnt FROM %s", name(Order))
	if err != nil {
		return err
	}
	news, err := query("SELECT no_w_id, no_d_id, no_o_id FROM %s", name(NewOrders))
	if err != nil {
		return err
	}
	lines, err := query("SELECT ol_w_id, ol_d_id, ol_o_id FROM %s", name(OrderLine))
	if err != nil {
		return err
	}
	ytd := map[int64]int64{}
	for _, r := range districts {
		ytd[r[0]] += r[2]
	}
	for _, r := range warehouses {
		if ytd[r[0]] != r[1] {
			errs = append(errs, fmt.Errorf("tpcc: warehouse %d: w_ytd %d, its districts' d_ytd add up to %d", r[0], r[1], ytd[r[0]]))
		}
	}
	maxOrder, olCnt, lineCnt := map[dk]int64{}, map[dk]int64{}, map[dk]int64{}
	for _, r := range orders {
		k := dk{r[0], r[1]}
		maxOrder[k] = max(maxOrder[k], r[2])
		olCnt[k] += r[3]
	}
	for _, r := range lines {
		lineCnt[dk{r[0], r[1]}]++
	}
	minNew, maxNew, newCnt := map[dk]int64{}, map[dk]int64{}, map[dk]int64{}
	for _, r := range news {
		k := dk{r[0], r[1]}
		if newCnt[k] == 0 || r[2] < minNew[k] {
			minNew[k] = r[2]
		}
		maxNew[k] = max(maxNew[k], r[2])
		newCnt[k]++
	}
	for _, r := range districts {
		k := dk{r[0], r[1]}
		if r[3]-1 != maxOrder[k] {
			errs = append(errs, fmt.Errorf("tpcc: district %d/%d: d_next_o_id %d, largest order id %d", k.w, k.d, r[3], maxOrder[k]))
		}
		if newCnt[k] > 0 && maxNew[k] != maxOrder[k] {
			errs = append(errs, fmt.Errorf("tpcc: district %d/%d: largest new order id %d, largest order id %d", k.w, k.d, maxNew[k], maxOrder[k]))
		}
		if newCnt[k] > 0 && maxNew[k]-minNew[k]+1 != newCnt[k] {
			errs = append(errs, fmt.Errorf("tpcc: district %d/%d: new orders %d to %d, but %d of them", k.w, k.d, minNew[k], maxNew[k], newCnt[k]))
		}
		if olCnt[k] != lineCnt[k] {
			errs = append(errs, fmt.Errorf("tpcc: district %d/%d: orders' o_ol_cnt add up to %d, %d order lines", k.w, k.d, olCnt[k], lineCnt[k]))
		}
	}
	return errors.Join(errs...)
}
