package usage

import (
	"context"

	"github.com/mcpcost/mcpcost/internal/store"
)

// BuildFromRows is Build reading the store's rows, never its rollups.
func BuildFromRows(ctx context.Context, st *store.Store, o Options) (*Report, error) {
	o.rows = true
	return Build(ctx, st, o)
}
