// Package tpcc is TPC-C as an SQL client program for package sqlrun, as
// BenchBase runs it in the experiments of Bouajjani, Enea and Román-Calvo,
// "On the Complexity of Checking Mixed Isolation Levels for SQL
// Transactions" (CAV 2025), §6, at a small scale so that histories stay
// small: one warehouse of a few districts, a few customers per district, a
// few items, a few initial orders.
//
// Its five transactions follow TPC-C's profiles, each statement a simple
// predicate over one table (where BenchBase joins, a transaction
// juxtaposes queries): NewOrder and Payment are the important ones (they
// run at the strong level of a mix such as "ser+rc"); OrderStatus,
// Delivery and StockLevel the others. Amounts of money are integers (in
// cents), rates integers in basis points.
package tpcc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlrun"
)

// Config is the scale of the initial data and of the transactions.
type Config struct {
	// Warehouses, Districts (per warehouse), Customers (per district)
	// and Items are the numbers of rows of those tables.
	Warehouses, Districts, Customers, Items int
	// Orders is the number of initial orders per district; the last
	// third of them (at least one) are new (undelivered).
	Orders int
	// MaxLines is the most order lines of an order (TPC-C: 15); a
	// NewOrder has 1 to MaxLines.
	MaxLines int
}

// DefaultConfig is a small scale, for small histories.
var DefaultConfig = Config{Warehouses: 1, Districts: 3, Customers: 10, Items: 20, Orders: 3, MaxLines: 4}

// App is the TPC-C application.
type App struct {
	cfg Config
}

// New returns the application at scale cfg (zero fields take
// DefaultConfig's).
func New(cfg Config) *App {
	def := DefaultConfig
	for _, f := range []struct{ v, d *int }{
		{&cfg.Warehouses, &def.Warehouses}, {&cfg.Districts, &def.Districts}, {&cfg.Customers, &def.Customers},
		{&cfg.Items, &def.Items}, {&cfg.Orders, &def.Orders}, {&cfg.MaxLines, &def.MaxLines},
	} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	cfg.MaxLines = min(cfg.MaxLines, cfg.Items)
	return &App{cfg: cfg}
}

// Name is "tpcc".
func (a *App) Name() string { return "tpcc" }

func cols(spec string) []sqlrun.Column {
	var cs []sqlrun.Column
	for f := range strings.FieldsSeq(spec) {
		name, typ, _ := strings.Cut(f, ":")
		t := sqlrun.Int
		if typ == "text" {
			t = sqlrun.Text
		}
		cs = append(cs, sqlrun.Column{Name: name, Type: t})
	}
	return cs
}

// The tables' names, as BenchBase's (the orders' is oorder: ORDER is a
// keyword).
const (
	Warehouse = "warehouse"
	District  = "district"
	Customer  = "customer"
	History   = "history"
	Order     = "oorder"
	NewOrders = "new_order"
	OrderLine = "order_line"
	Item      = "item"
	Stock     = "stock"
)

// Tables are TPC-C's, with fewer columns: the ones the transactions use.
func (a *App) Tables() []sqlrun.Table {
	return []sqlrun.Table{
		{Name: Warehouse, Key: []string{"w_id"}, Columns: cols("w_id w_name:text w_tax w_ytd")},
		{Name: District, Key: []string{"d_w_id", "d_id"}, Columns: cols("d_w_id d_id d_name:text d_tax d_ytd d_next_o_id")},
		{Name: Customer, Key: []string{"c_w_id", "c_d_id", "c_id"}, Columns: cols(
			"c_w_id c_d_id c_id c_first:text c_last:text c_credit:text c_discount c_balance c_ytd_payment c_payment_cnt c_delivery_cnt")},
		{Name: History, Key: []string{"h_id"}, Columns: cols("h_id h_c_id h_c_d_id h_c_w_id h_d_id h_w_id h_amount h_data:text")},
		{Name: Order, Key: []string{"o_w_id", "o_d_id", "o_id"}, Columns: cols("o_w_id o_d_id o_id o_c_id o_carrier_id o_ol_cnt o_all_local")},
		{Name: NewOrders, Key: []string{"no_w_id", "no_d_id", "no_o_id"}, Columns: cols("no_w_id no_d_id no_o_id")},
		{Name: OrderLine, Key: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}, Columns: cols(
			"ol_w_id ol_d_id ol_o_id ol_number ol_i_id ol_supply_w_id ol_quantity ol_amount ol_delivery_d")},
		{Name: Item, Key: []string{"i_id"}, Columns: cols("i_id i_name:text i_price i_data:text")},
		{Name: Stock, Key: []string{"s_w_id", "s_i_id"}, Columns: cols("s_w_id s_i_id s_quantity s_ytd s_order_cnt s_remote_cnt")},
	}
}

// lastNames are the customers' last names: few, so that Payment's and
// OrderStatus's selections by last name find several customers.
var lastNames = []string{"BARBARBAR", "OUGHTABLEPRI", "ESEANTICALLY", "O'PRES"}

func i64(i int) predicate.Value { return predicate.Int(int64(i)) }

// Load returns the initial rows: the warehouses, districts, customers,
// items, stock, and Orders orders per district with their lines, the
// last third of them new.
func (a *App) Load(rng *rand.Rand) map[string][]predicate.Row {
	c := a.cfg
	rows := map[string][]predicate.Row{}
	add := func(t string, r predicate.Row) { rows[t] = append(rows[t], r) }
	for i := 1; i <= c.Items; i++ {
		add(Item, predicate.Row{"i_id": i64(i), "i_name": predicate.String("item" + strconv.Itoa(i)),
			"i_price": i64(100 + rng.IntN(9901)), "i_data": predicate.String("data")})
	}
	newFrom := c.Orders - max(1, c.Orders/3) + 1
	for w := 1; w <= c.Warehouses; w++ {
		var dytd int
		for i := 1; i <= c.Items; i++ {
			add(Stock, predicate.Row{"s_w_id": i64(w), "s_i_id": i64(i), "s_quantity": i64(10 + rng.IntN(91)),
				"s_ytd": i64(0), "s_order_cnt": i64(0), "s_remote_cnt": i64(0)})
		}
		for d := 1; d <= c.Districts; d++ {
			dytd += 3000000
			add(District, predicate.Row{"d_w_id": i64(w), "d_id": i64(d), "d_name": predicate.String(fmt.Sprintf("district%d", d)),
				"d_tax": i64(rng.IntN(2001)), "d_ytd": i64(3000000), "d_next_o_id": i64(c.Orders + 1)})
			for cu := 1; cu <= c.Customers; cu++ {
				credit := "GC"
				if rng.IntN(10) == 0 {
					credit = "BC"
				}
				add(Customer, predicate.Row{"c_w_id": i64(w), "c_d_id": i64(d), "c_id": i64(cu),
					"c_first": predicate.String(fmt.Sprintf("first%d", cu)), "c_last": predicate.String(lastNames[rng.IntN(len(lastNames))]),
					"c_credit": predicate.String(credit), "c_discount": i64(rng.IntN(5001)), "c_balance": i64(-1000),
					"c_ytd_payment": i64(1000), "c_payment_cnt": i64(1), "c_delivery_cnt": i64(0)})
				add(History, predicate.Row{"h_id": i64(((w*100)+d)*10000 + cu), "h_c_id": i64(cu), "h_c_d_id": i64(d), "h_c_w_id": i64(w),
					"h_d_id": i64(d), "h_w_id": i64(w), "h_amount": i64(1000), "h_data": predicate.String("initial")})
			}
			for o := 1; o <= c.Orders; o++ {
				lines := 1 + rng.IntN(c.MaxLines)
				order := predicate.Row{"o_w_id": i64(w), "o_d_id": i64(d), "o_id": i64(o), "o_c_id": i64(1 + rng.IntN(c.Customers)),
					"o_ol_cnt": i64(lines), "o_all_local": i64(1)}
				if o < newFrom {
					order["o_carrier_id"] = i64(1 + rng.IntN(10))
				} else {
					add(NewOrders, predicate.Row{"no_w_id": i64(w), "no_d_id": i64(d), "no_o_id": i64(o)})
				}
				add(Order, order)
				for n, item := range rng.Perm(c.Items)[:lines] {
					line := predicate.Row{"ol_w_id": i64(w), "ol_d_id": i64(d), "ol_o_id": i64(o), "ol_number": i64(n + 1),
						"ol_i_id": i64(item + 1), "ol_supply_w_id": i64(w), "ol_quantity": i64(5), "ol_amount": i64(0)}
					if o < newFrom {
						line["ol_delivery_d"] = i64(o)
					} else {
						line["ol_amount"] = i64(1 + rng.IntN(999999))
					}
					add(OrderLine, line)
				}
			}
		}
		add(Warehouse, predicate.Row{"w_id": i64(w), "w_name": predicate.String(fmt.Sprintf("warehouse%d", w)),
			"w_tax": i64(rng.IntN(2001)), "w_ytd": i64(dytd)})
	}
	return rows
}

// The transactions' names.
const (
	NewOrder    = "NewOrder"
	Payment     = "Payment"
	OrderStatus = "OrderStatus"
	Delivery    = "Delivery"
	StockLevel  = "StockLevel"
)

// Next returns a random transaction in TPC-C's mix: NewOrder 45%,
// Payment 43%, OrderStatus, Delivery and StockLevel 4% each.
func (a *App) Next(rng *rand.Rand) sqlrun.Txn {
	w := 1 + rng.IntN(a.cfg.Warehouses)
	d := 1 + rng.IntN(a.cfg.Districts)
	switch p := rng.IntN(100); {
	case p < 45:
		return a.newOrder(rng, w, d)
	case p < 88:
		return a.payment(rng, w, d)
	case p < 92:
		return a.orderStatus(rng, w, d)
	case p < 96:
		return a.delivery(rng, w)
	}
	return a.stockLevel(rng, w, d)
}

// where parses a predicate written with fmt's verbs; values are
// predicate Values, printed as SQL literals.
func where(format string, args ...any) *predicate.Expr {
	return predicate.MustParse(fmt.Sprintf(format, args...))
}

func num(r predicate.Row, col string) int64 {
	i, _ := r[col].JSON().(int64)
	return i
}

// customerWhere selects the customer by id, or (with byName) by last name.
func (a *App) customerWhere(rng *rand.Rand, w, d int, byName bool) *predicate.Expr {
	if byName {
		return where("c_w_id = %v AND c_d_id = %v AND c_last = %v", i64(w), i64(d), predicate.String(lastNames[rng.IntN(len(lastNames))]))
	}
	return where("c_w_id = %v AND c_d_id = %v AND c_id = %v", i64(w), i64(d), i64(1+rng.IntN(a.cfg.Customers)))
}

// pickCustomer is TPC-C's choice among customers of one last name: the
// one at position ⌈n/2⌉ in order of first name (here, of id).
func pickCustomer(rows []predicate.Row) predicate.Row {
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(x, y predicate.Row) int { return int(num(x, "c_id") - num(y, "c_id")) })
	return rows[(len(rows)-1)/2]
}

func (a *App) newOrder(rng *rand.Rand, w, d int) sqlrun.Txn {
	c := 1 + rng.IntN(a.cfg.Customers)
	lines := 1 + rng.IntN(a.cfg.MaxLines)
	items := rng.Perm(a.cfg.Items)[:lines]
	qty := make([]int, lines)
	for i := range items {
		items[i]++
		qty[i] = 1 + rng.IntN(10)
	}
	if rng.IntN(100) == 0 {
		items[lines-1] = a.cfg.Items + 1 // unused: the order rolls back
	}
	return sqlrun.Txn{Name: NewOrder, Important: true, Run: func(tx *sqlrun.Tx) error {
		if _, err := tx.Select(Warehouse, where("w_id = %v", i64(w))); err != nil {
			return err
		}
		dist := where("d_w_id = %v AND d_id = %v", i64(w), i64(d))
		if _, err := tx.Select(District, dist); err != nil {
			return err
		}
		// The order's id is the one the increment took (at READ
		// COMMITTED, the select may have seen an older one).
		upd, err := tx.Update(District, dist, sqlrun.Set{"d_next_o_id": sqlrun.Add(i64(1))})
		if err != nil {
			return err
		}
		if len(upd) != 1 {
			return fmt.Errorf("tpcc: district %d/%d is missing", w, d)
		}
		o := num(upd[0], "d_next_o_id") - 1
		if _, err := tx.Select(Customer, where("c_w_id = %v AND c_d_id = %v AND c_id = %v", i64(w), i64(d), i64(c))); err != nil {
			return err
		}
		if err := tx.Insert(Order, predicate.Row{"o_w_id": i64(w), "o_d_id": i64(d), "o_id": predicate.Int(o), "o_c_id": i64(c),
			"o_ol_cnt": i64(lines), "o_all_local": i64(1)}); err != nil {
			return err
		}
		if err := tx.Insert(NewOrders, predicate.Row{"no_w_id": i64(w), "no_d_id": i64(d), "no_o_id": predicate.Int(o)}); err != nil {
			return err
		}
		for n, item := range items {
			it, err := tx.Select(Item, where("i_id = %v", i64(item)))
			if err != nil {
				return err
			}
			if len(it) == 0 {
				return tx.Abort() // TPC-C's 1% of NewOrders with an unused item
			}
			stockKey := where("s_w_id = %v AND s_i_id = %v", i64(w), i64(item))
			st, err := tx.Select(Stock, stockKey)
			if err != nil {
				return err
			}
			if len(st) != 1 {
				return fmt.Errorf("tpcc: stock %d/%d is missing", w, item)
			}
			q := num(st[0], "s_quantity") - int64(qty[n])
			if q < 10 {
				q += 91
			}
			if _, err := tx.Update(Stock, stockKey, sqlrun.Set{"s_quantity": sqlrun.To(predicate.Int(q)),
				"s_ytd": sqlrun.Add(i64(qty[n])), "s_order_cnt": sqlrun.Add(i64(1))}); err != nil {
				return err
			}
			if err := tx.Insert(OrderLine, predicate.Row{"ol_w_id": i64(w), "ol_d_id": i64(d), "ol_o_id": predicate.Int(o),
				"ol_number": i64(n + 1), "ol_i_id": i64(item), "ol_supply_w_id": i64(w), "ol_quantity": i64(qty[n]),
				"ol_amount": predicate.Int(int64(qty[n]) * num(it[0], "i_price"))}); err != nil {
				return err
			}
		}
		return nil
	}}
}

func (a *App) payment(rng *rand.Rand, w, d int) sqlrun.Txn {
	cents := 100 + rng.IntN(500000)
	amount, neg := i64(cents), i64(-cents)
	cust := a.customerWhere(rng, w, d, rng.IntN(100) < 60)
	return sqlrun.Txn{Name: Payment, Important: true, Run: func(tx *sqlrun.Tx) error {
		if _, err := tx.Update(Warehouse, where("w_id = %v", i64(w)), sqlrun.Set{"w_ytd": sqlrun.Add(amount)}); err != nil {
			return err
		}
		if _, err := tx.Update(District, where("d_w_id = %v AND d_id = %v", i64(w), i64(d)), sqlrun.Set{"d_ytd": sqlrun.Add(amount)}); err != nil {
			return err
		}
		rows, err := tx.Select(Customer, cust)
		if err != nil {
			return err
		}
		c := pickCustomer(rows)
		if c == nil {
			return nil // nobody of that last name
		}
		if _, err := tx.Update(Customer, where("c_w_id = %v AND c_d_id = %v AND c_id = %v", c["c_w_id"], c["c_d_id"], c["c_id"]),
			sqlrun.Set{"c_balance": sqlrun.Add(neg), "c_ytd_payment": sqlrun.Add(amount), "c_payment_cnt": sqlrun.Add(i64(1))}); err != nil {
			return err
		}
		return tx.Insert(History, predicate.Row{"h_id": predicate.Int(tx.NewID()), "h_c_id": c["c_id"], "h_c_d_id": c["c_d_id"],
			"h_c_w_id": c["c_w_id"], "h_d_id": i64(d), "h_w_id": i64(w), "h_amount": amount, "h_data": predicate.String("payment")})
	}}
}

func (a *App) orderStatus(rng *rand.Rand, w, d int) sqlrun.Txn {
	cust := a.customerWhere(rng, w, d, rng.IntN(100) < 60)
	return sqlrun.Txn{Name: OrderStatus, Run: func(tx *sqlrun.Tx) error {
		rows, err := tx.Select(Customer, cust)
		if err != nil {
			return err
		}
		c := pickCustomer(rows)
		if c == nil {
			return nil
		}
		orders, err := tx.Select(Order, where("o_w_id = %v AND o_d_id = %v AND o_c_id = %v", i64(w), i64(d), c["c_id"]))
		if err != nil || len(orders) == 0 {
			return err
		}
		last := slices.MaxFunc(orders, func(x, y predicate.Row) int { return int(num(x, "o_id") - num(y, "o_id")) })
		_, err = tx.Select(OrderLine, where("ol_w_id = %v AND ol_d_id = %v AND ol_o_id = %v", i64(w), i64(d), last["o_id"]))
		return err
	}}
}

func (a *App) delivery(rng *rand.Rand, w int) sqlrun.Txn {
	carrier := i64(1 + rng.IntN(10))
	return sqlrun.Txn{Name: Delivery, Run: func(tx *sqlrun.Tx) error {
		for d := 1; d <= a.cfg.Districts; d++ {
			news, err := tx.Select(NewOrders, where("no_w_id = %v AND no_d_id = %v", i64(w), i64(d)))
			if err != nil {
				return err
			}
			if len(news) == 0 {
				continue
			}
			oldest := slices.MinFunc(news, func(x, y predicate.Row) int { return int(num(x, "no_o_id") - num(y, "no_o_id")) })
			o := oldest["no_o_id"]
			del, err := tx.Delete(NewOrders, where("no_w_id = %v AND no_d_id = %v AND no_o_id = %v", i64(w), i64(d), o))
			if err != nil {
				return err
			}
			if len(del) == 0 {
				continue // another Delivery took it
			}
			okey := where("o_w_id = %v AND o_d_id = %v AND o_id = %v", i64(w), i64(d), o)
			orders, err := tx.Select(Order, okey)
			if err != nil {
				return err
			}
			if len(orders) != 1 {
				return fmt.Errorf("tpcc: new order %d/%d/%v has no order", w, d, o)
			}
			if _, err := tx.Update(Order, okey, sqlrun.Set{"o_carrier_id": sqlrun.To(carrier)}); err != nil {
				return err
			}
			lines, err := tx.Update(OrderLine, where("ol_w_id = %v AND ol_d_id = %v AND ol_o_id = %v", i64(w), i64(d), o),
				sqlrun.Set{"ol_delivery_d": sqlrun.To(predicate.Int(tx.NewID()))})
			if err != nil {
				return err
			}
			var sum int64
			for _, l := range lines {
				sum += num(l, "ol_amount")
			}
			if _, err := tx.Update(Customer, where("c_w_id = %v AND c_d_id = %v AND c_id = %v", i64(w), i64(d), orders[0]["o_c_id"]),
				sqlrun.Set{"c_balance": sqlrun.Add(predicate.Int(sum)), "c_delivery_cnt": sqlrun.Add(i64(1))}); err != nil {
				return err
			}
		}
		return nil
	}}
}

func (a *App) stockLevel(rng *rand.Rand, w, d int) sqlrun.Txn {
	threshold := i64(10 + rng.IntN(11))
	return sqlrun.Txn{Name: StockLevel, Run: func(tx *sqlrun.Tx) error {
		dist, err := tx.Select(District, where("d_w_id = %v AND d_id = %v", i64(w), i64(d)))
		if err != nil || len(dist) == 0 {
			return err
		}
		next := num(dist[0], "d_next_o_id")
		lines, err := tx.Select(OrderLine, where("ol_w_id = %v AND ol_d_id = %v AND ol_o_id BETWEEN %v AND %v",
			i64(w), i64(d), predicate.Int(next-20), predicate.Int(next-1)))
		if err != nil || len(lines) == 0 {
			return err
		}
		var items []int64
		for _, l := range lines {
			items = append(items, num(l, "ol_i_id"))
		}
		slices.Sort(items)
		items = slices.Compact(items)
		lits := make([]string, len(items))
		for i, it := range items {
			lits[i] = strconv.FormatInt(it, 10)
		}
		_, err = tx.Select(Stock, where("s_w_id = %v AND s_quantity < %v AND s_i_id IN (%s)", i64(w), threshold, strings.Join(lits, ", ")))
		return err
	}}
}
