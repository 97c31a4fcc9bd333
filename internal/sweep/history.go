package sweep

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// HistoryHeader is history.csv's header, mcp-context-cost's.
var HistoryHeader = []string{"date", "server", "tokens", "toolCount", "status", "isolation"}

// MaxHistoryRows caps the rows read from history.csv.
const MaxHistoryRows = 1 << 20

// HistoryRow is one server on one UTC day.
type HistoryRow struct {
	Date      string // YYYY-MM-DD
	Server    string
	Tokens    int
	ToolCount int
	Status    string // measured or dynamic: no other row is read or written
	Isolation string // host, sandbox, docker, or "" (not recorded)
}

// ReadHistory reads history.csv; name names it in errors.
func ReadHistory(data []byte, name string) ([]HistoryRow, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(head) < 5 || head[0] != "date" || head[1] != "server" || head[2] != "tokens" || head[3] != "toolCount" || head[4] != "status" {
		return nil, fmt.Errorf("%s: line 1: not a history (the header is not date,server,tokens,toolCount,status,isolation)", name)
	}
	var out []HistoryRow
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if len(out) >= MaxHistoryRows {
			return nil, fmt.Errorf("%s: more than %d rows", name, MaxHistoryRows)
		}
		if len(rec) < 5 {
			return nil, fmt.Errorf("%s: line %d: %d fields, want 6", name, line, len(rec))
		}
		row := HistoryRow{Date: rec[0], Server: rec[1], Status: rec[4]}
		if len(rec) > 5 {
			row.Isolation = rec[5]
		}
		if _, err := time.Parse(time.DateOnly, row.Date); err != nil {
			return nil, fmt.Errorf("%s: line %d: the date %q is not YYYY-MM-DD", name, line, row.Date)
		}
		if !status.Status(row.Status).OK() {
			return nil, fmt.Errorf("%s: line %d: the status %s is not measured or dynamic, the only rows a history holds", name, line, textsafe.Quote(row.Status))
		}
		switch row.Isolation {
		case "", IsolationHost, IsolationSandbox, IsolationDocker:
		default:
			return nil, fmt.Errorf("%s: line %d: the isolation %s is not host, sandbox, docker or empty", name, line, textsafe.Quote(row.Isolation))
		}
		if why := CheckName(row.Server); why != "" {
			return nil, fmt.Errorf("%s: line %d: %s", name, line, why)
		}
		if row.Tokens, err = strconv.Atoi(rec[2]); err != nil || row.Tokens < 0 {
			return nil, fmt.Errorf("%s: line %d: tokens %q is not a count", name, line, rec[2])
		}
		if row.ToolCount, err = strconv.Atoi(rec[3]); err != nil || row.ToolCount < 0 {
			return nil, fmt.Errorf("%s: line %d: toolCount %q is not a count", name, line, rec[3])
		}
		out = append(out, row)
	}
	return out, nil
}

// Upsert puts rows into history: one row per date and server, the new
// one replacing the old; the result is sorted by date, then server.
func Upsert(history, rows []HistoryRow) []HistoryRow {
	type key struct{ date, server string }
	at := map[key]int{}
	out := append([]HistoryRow(nil), history...)
	for i, r := range out {
		at[key{r.Date, r.Server}] = i
	}
	for _, r := range rows {
		k := key{r.Date, r.Server}
		if i, ok := at[k]; ok {
			out[i] = r
			continue
		}
		at[k] = len(out)
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Date != out[j].Date {
			return out[i].Date < out[j].Date
		}
		return out[i].Server < out[j].Server
	})
	// Rows read twice for one key (a hand-edited file): the last wins.
	dedup := out[:0]
	for i, r := range out {
		if i+1 < len(out) && out[i+1].Date == r.Date && out[i+1].Server == r.Server {
			continue
		}
		dedup = append(dedup, r)
	}
	return dedup
}

// HistoryCSV writes history.csv.
func HistoryCSV(rows []HistoryRow) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(HistoryHeader)
	for _, r := range rows {
		w.Write([]string{r.Date, r.Server, strconv.Itoa(r.Tokens), strconv.Itoa(r.ToolCount), r.Status, r.Isolation})
	}
	w.Flush()
	return b.Bytes()
}

// Trend is a server's rows, oldest first, cut to the run ending at the
// newest whose known isolation matches the newest row's (an unknown
// isolation stays in the run), at most max rows.
func Trend(history []HistoryRow, server string, max int) []HistoryRow {
	var rows []HistoryRow
	for _, r := range history {
		if r.Server == server {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	iso := rows[len(rows)-1].Isolation
	start := len(rows) - 1
	for start > 0 {
		p := rows[start-1].Isolation
		if p != "" && iso != "" && p != iso {
			break
		}
		if iso == "" {
			iso = p
		}
		start--
	}
	rows = rows[start:]
	if max > 0 && len(rows) > max {
		rows = rows[len(rows)-max:]
	}
	return rows
}
