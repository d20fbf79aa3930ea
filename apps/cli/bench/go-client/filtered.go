package main

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// The filtered reads an agent sends after discovery, written as each server's users write them:
// filter strings as Faucet's (DreamFactory-style) grammar reads them, `limit 25` (Faucet's
// default page), and no order, since a user who wants rows that match names none. Our query
// takes the same strings, and DBHub's execute_sql the same conditions as SQL. The values come
// from the benchmark dataset's ranges (packages/dataset: statuses, totals to about 13,000, orders
// placed 2021 to 2025).

// filterLimit is the page every filtered read asks for.
const filterLimit = 25

var orderStatuses = []string{"pending", "paid", "shipped", "delivered", "cancelled", "refunded"}

// A filterShape draws one condition on orders: the same rows on every server, in each one's syntax.
type filterShape struct {
	name string
	// the condition as a filter string, with timestamps written for `ours` (ISO-8601) or for
	// Faucet and SQL (a date, which every engine compares with its stored timestamps)
	condition func(rng *rand.Rand, cfg config, iso bool) string
}

// filterShapes are the five filtered shapes; the `filtered` workload draws one per call.
var filterShapes = []filterShape{
	// an equality on an index's first column, and a condition no index takes
	{"f-status-total", func(rng *rand.Rand, _ config, _ bool) string {
		return fmt.Sprintf("status = '%s' AND total > %d", pick(rng, orderStatuses), rng.IntN(5000))
	}},
	// a foreign key
	{"f-fk", func(rng *rand.Rand, cfg config, _ bool) string {
		return fmt.Sprintf("customer_id = %d", 1+rng.IntN(cfg.customers))
	}},
	// an equality, then a range on the same index's next column
	{"f-status-since", func(rng *rand.Rand, _ config, iso bool) string {
		return fmt.Sprintf("status = '%s' AND placed_at >= '%s'", pick(rng, orderStatuses), someDay(rng, iso))
	}},
	// BETWEEN on an indexed column
	{"f-fk-between", func(rng *rand.Rand, cfg config, _ bool) string {
		c := 1 + rng.IntN(cfg.customers)
		return fmt.Sprintf("customer_id BETWEEN %d AND %d", c, c+9)
	}},
	// BETWEEN on a column no index has: a scan on every server
	{"f-total-between", func(rng *rand.Rand, _ config, _ bool) string {
		a := rng.IntN(5000)
		return fmt.Sprintf("total BETWEEN %d AND %d", a, a+500)
	}},
}

// filterShapeNamed is the shape a workload names, or nil for `filtered` (one drawn per call).
func filterShapeNamed(name string) *filterShape {
	for i := range filterShapes {
		if filterShapes[i].name == name {
			return &filterShapes[i]
		}
	}
	return nil
}

func pick(rng *rand.Rand, from []string) string { return from[rng.IntN(len(from))] }

// someDay is a day from 2021 to 2025, as ISO-8601 at midnight UTC or as a bare date.
func someDay(rng *rand.Rand, iso bool) string {
	day := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(5*365-30))
	if iso {
		return day.Format("2006-01-02T15:04:05Z")
	}
	return day.Format("2006-01-02")
}

// filtered is one filtered read through the agent's tools: the workload's shape, or one drawn.
func (w *worker) filtered() error {
	shape := filterShapeNamed(w.cfg.workload)
	if shape == nil {
		shape = &filterShapes[w.rng.IntN(len(filterShapes))]
	}
	return w.call(w.tools.filter(w.cfg, shape.condition(w.rng, w.cfg, w.tools.isoTimestamps)))
}
