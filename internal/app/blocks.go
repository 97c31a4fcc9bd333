package app

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// BlocksOptions configure [Machine.Blocks].
type BlocksOptions struct {
	// Window keeps the blocks that start in it (days and dates in TZ).
	Window usage.WindowArgs
	// Location names days and times; nil for the zone TZ names.
	Location *time.Location
	TZ       string
	// Mode is how a request's cost is found (usage.Modes); "" for auto.
	Mode string
	// TokenLimit is a number of tokens, or "max" for the most a finished
	// block used; "" for none.
	TokenLimit string
	// Active keeps the active block alone; Recent the last three days'
	// blocks and the active one.
	Active, Recent bool
	// Order is asc or desc ("" for asc).
	Order string
	// SessionLength is a block's length in hours, as ccusage's
	// --session-length; 0 for five.
	SessionLength float64
	// PricesFile is a price table instead of the embedded one.
	PricesFile string
	// Machine and User keep one machine's, or one OS user's, requests.
	Machine, User string
	Store         StoreOptions
}

// MaxSessionHours is the longest block BlocksOptions.SessionLength may
// ask for: a year.
const MaxSessionHours = 8760

// Blocks reads what is new in the transcripts into the usage store
// (unless o.Store.NoIngest) and reports Claude Code's billing blocks.
func (m *Machine) Blocks(ctx context.Context, o BlocksOptions) (rep *usage.BlocksReport, ingested *IngestStats, err error) {
	bo := usage.BlocksOptions{Mode: o.Mode, Now: m.now(), Active: o.Active, Recent: o.Recent, Order: o.Order, Machine: o.Machine, User: o.User}
	if bo.Mode != "" && !slices.Contains(usage.Modes, bo.Mode) {
		return nil, nil, valueErrorf(m.flag("mode"), bo.Mode, usage.Modes, "%s must be one of %s, not %s", m.flag("mode"), strings.Join(usage.Modes, ", "), textsafe.Quote(bo.Mode))
	}
	if bo.Order != "" && !slices.Contains(usage.Orders, bo.Order) {
		return nil, nil, valueErrorf(m.flag("order"), bo.Order, usage.Orders, "%s must be asc or desc, not %s", m.flag("order"), textsafe.Quote(bo.Order))
	}
	if l := o.SessionLength; l != 0 {
		if !(l*3600 >= 1 && l <= MaxSessionHours) {
			return nil, nil, optionErrorf("%s must be a number of hours from 0.0003 (a second) to %d, not %v", m.flag("session-length"), MaxSessionHours, l)
		}
		bo.Length = time.Duration(math.Round(l*3600e3)) * time.Millisecond
	}
	if o.Active && o.Recent {
		return nil, nil, optionErrorf("%s and %s exclude each other", m.flag("active"), m.flag("recent"))
	}
	switch lim := strings.TrimSpace(o.TokenLimit); lim {
	case "":
	case "max":
		bo.TokenLimitMax = true
	default:
		n, err := strconv.ParseInt(lim, 10, 64)
		if err != nil || n < 1 || n > transcript.MaxTokens {
			return nil, nil, optionErrorf("%s must be a number of tokens from 1 to %d, or max (the most a finished block used), not %s",
				m.flag("token-limit"), int64(transcript.MaxTokens), textsafe.Quote(o.TokenLimit))
		}
		bo.TokenLimit = n
	}
	if bo.Location, err = m.location(o.Location, o.TZ); err != nil {
		return nil, nil, err
	}
	if bo.Since, bo.Until, err = m.window(o.Window, bo.Now, bo.Location); err != nil {
		return nil, nil, err
	}
	if bo.Prices, err = m.Prices(o.PricesFile); err != nil {
		return nil, nil, err
	}
	st, ingested, err := m.openStore(ctx, o.Store)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	if rep, err = usage.Blocks(ctx, st, bo); err != nil {
		return nil, nil, err
	}
	if ingested != nil {
		rep.Ingest = ingested
	}
	return rep, ingested, nil
}
