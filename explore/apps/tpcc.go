package apps

import (
	"fmt"

	"github.com/isocheck/isocheck/explore"
)

// TPC-C has one warehouse, two districts, two customers and two items.
// The warehouse's and districts' year-to-date payments are the fields
// warehouse:ytd and district:d:ytd, a district's next order number
// district:d:next; the orders table is the key "orders", order o of
// district d having id d*16+o and the fields order:id:cust (the customer
// plus one), order:id:item and order:id:qty; the new-orders table (the
// undelivered orders) is the key "neworders"; an item's stock is
// stock:i:qty, a customer's balance customer:c:balance and the id plus one
// of its last order customer:c:last.
const (
	tpDistricts = 2
	tpCustomers = 2
	tpItems     = 2
	tpStock     = 10 // every item's initial stock
)

func tpNext(d int) string        { return field("district", d, "next") }
func tpDistrictYTD(d int) string { return field("district", d, "ytd") }
func tpOrder(id int, name string) string {
	return field("order", id, name)
}
func tpStockQty(i int) string { return field("stock", i, "qty") }
func tpBalance(c int) string  { return field("customer", c, "balance") }
func tpLast(c int) string     { return field("customer", c, "last") }
func tpOrderID(d, o int) int  { return d*16 + o }

func tpcc(nsessions, ntxns int, seed int64) *explore.Program {
	r := newRand(seed)
	p := &explore.Program{
		Init:  map[string]explore.Value{},
		Final: &explore.Txn{Name: "check-warehouse", Body: tpCheck},
	}
	for i := 0; i < tpItems; i++ {
		p.Init[tpStockQty(i)] = tpStock
	}
	p.Sessions = sessions(nsessions, ntxns, func(i, j int) explore.Txn {
		d, c := r.IntN(tpDistricts), r.IntN(tpCustomers)
		switch k := r.IntN(10); {
		case k < 3:
			return tpNewOrder(d, c, r.IntN(tpItems), 1+r.IntN(5))
		case k < 5:
			return tpPayment(d, c, 1+r.IntN(9))
		case k < 7:
			return tpOrderStatus(c)
		case k < 9:
			return tpDelivery(d)
		default:
			return tpStockLevel(5)
		}
	})
	return p
}

// tpNewOrder enters an order of q of item by customer c in district d.
func tpNewOrder(d, c, item, q int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("new-order(d%d,c%d,i%d,%d)", d, c, item, q), Body: func(tx *explore.Tx) {
		o := int(tx.Read(tpNext(d)))
		if o >= 16 {
			tx.Abort()
		}
		tx.Write(tpNext(d), explore.Value(o+1))
		id := tpOrderID(d, o)
		tx.Write("orders", explore.SetAdd(tx.Read("orders"), id))
		tx.Write("neworders", explore.SetAdd(tx.Read("neworders"), id))
		tx.Write(tpOrder(id, "cust"), explore.Value(c+1))
		tx.Write(tpOrder(id, "item"), explore.Value(item))
		tx.Write(tpOrder(id, "qty"), explore.Value(q))
		s := tx.Read(tpStockQty(item))
		tx.Assert(s >= 0, "item %d has stock %d", item, s)
		// TPC-C's rule keeps the stock positive: restock by 91 when it
		// would fall below 10.
		if s >= explore.Value(q)+10 {
			s -= explore.Value(q)
		} else {
			s += 91 - explore.Value(q)
		}
		tx.Write(tpStockQty(item), s)
		tx.Write(tpLast(c), explore.Value(id+1))
	}}
}

// tpPayment makes customer c pay amount to district d.
func tpPayment(d, c, amount int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("payment(d%d,c%d,%d)", d, c, amount), Body: func(tx *explore.Tx) {
		a := explore.Value(amount)
		tx.Write("warehouse:ytd", tx.Read("warehouse:ytd")+a)
		tx.Write(tpDistrictYTD(d), tx.Read(tpDistrictYTD(d))+a)
		tx.Write(tpBalance(c), tx.Read(tpBalance(c))-a)
	}}
}

// tpOrderStatus reads customer c's last order, which must exist and be
// c's.
func tpOrderStatus(c int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("order-status(c%d)", c), Body: func(tx *explore.Tx) {
		tx.Read(tpBalance(c))
		last := int(tx.Read(tpLast(c))) - 1
		if last < 0 {
			return
		}
		tx.Assert(explore.SetHas(tx.Read("orders"), last), "customer %d's last order %d is not in the orders table", c, last)
		cust := tx.Read(tpOrder(last, "cust"))
		tx.Assert(cust == explore.Value(c+1), "customer %d's last order %d is customer %d's", c, last, cust-1)
	}}
}

// tpDelivery delivers the oldest undelivered order of district d and
// charges its customer.
func tpDelivery(d int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("delivery(d%d)", d), Body: func(tx *explore.Tx) {
		nos := tx.Read("neworders")
		id := -1
		for _, x := range explore.SetIDs(nos) {
			if x/16 == d {
				id = x
				break
			}
		}
		if id < 0 {
			return
		}
		tx.Write("neworders", explore.SetRemove(nos, id))
		c := int(tx.Read(tpOrder(id, "cust"))) - 1
		tx.Assert(c >= 0, "undelivered order %d has no customer", id)
		if c < 0 {
			return
		}
		q := tx.Read(tpOrder(id, "qty"))
		tx.Write(tpBalance(c), tx.Read(tpBalance(c))+q)
	}}
}

// tpStockLevel counts the items whose stock is below threshold.
func tpStockLevel(threshold int) explore.Txn {
	return explore.Txn{Name: fmt.Sprintf("stock-level(%d)", threshold), Body: func(tx *explore.Tx) {
		for i := 0; i < tpItems; i++ {
			s := tx.Read(tpStockQty(i))
			tx.Assert(s >= 0, "item %d has stock %d", i, s)
		}
	}}
}

// tpCheck asserts TPC-C's consistency conditions over the final state: the
// warehouse's year-to-date is its districts', a district's orders are
// numbered 0 to its next order number, and stock is never negative.
func tpCheck(tx *explore.Tx) {
	var sum explore.Value
	for d := 0; d < tpDistricts; d++ {
		sum += tx.Read(tpDistrictYTD(d))
	}
	w := tx.Read("warehouse:ytd")
	tx.Assert(w == sum, "the warehouse's year-to-date is %d, its districts' %d", w, sum)
	orders := tx.Read("orders")
	for d := 0; d < tpDistricts; d++ {
		next := int(tx.Read(tpNext(d)))
		n := count(orders, tpOrderID(d, 0), 16)
		tx.Assert(n == next, "district %d's next order number is %d, it has %d orders", d, next, n)
	}
	for i := 0; i < tpItems; i++ {
		s := tx.Read(tpStockQty(i))
		tx.Assert(s >= 0, "item %d has stock %d", i, s)
	}
}
