package usage

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// WriteCSV prints the report's rows as CSV (RFC 4180), one header line
// and one line per row, numbers without separators and costs in dollars
// unrounded ("" for a group without a price). By day, week, month,
// session and project, a breakdown's models follow their group, each
// line naming its model (empty on the group's own line); by server and
// tool, the tool rows; by model the model is the key, with no model
// column after it. Text that strangers control is escaped as in the
// other forms, and never starts a spreadsheet formula.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	switch r.By {
	case "server", "tool":
		head := []string{"server", "builtIn", "plugin"}
		if r.By == "tool" {
			head = append(head, "tool")
		} else {
			head = append(head, "tools")
		}
		head = append(head, "calls", "errors", "unanswered", "sessions", "resultTokens", "avgResultTokens", "maxResultTokens",
			"estimatedTokens", "nonTextBlocks", "repeatedCalls", "latencyP50Ms", "latencyP95Ms")
		if err := cw.Write(head); err != nil {
			return err
		}
		for _, x := range r.Tools {
			rec := []string{cell(x.Server), strconv.FormatBool(x.BuiltIn), cell(x.Plugin)}
			if r.By == "tool" {
				rec = append(rec, cell(x.Tool))
			} else {
				rec = append(rec, strconv.Itoa(x.Tools))
			}
			rec = append(rec, strconv.Itoa(x.Calls), strconv.Itoa(x.Errors), strconv.Itoa(x.Unanswered), strconv.Itoa(x.Sessions),
				i64(x.ResultTokens), strconv.FormatFloat(x.AvgResultTokens, 'f', -1, 64), i64(x.MaxResultTokens),
				i64(x.EstimatedTokens), strconv.Itoa(x.NonTextBlocks), strconv.Itoa(x.RepeatedCalls), opt(x.LatencyP50Ms), opt(x.LatencyP95Ms))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	default:
		head := []string{r.By, "model", "requests", "input", "output", "reasoning", "cacheWrite5m", "cacheWrite1h", "cacheRead", "total",
			"cost", "costPartial", "unpriced", "toolCalls", "resultTokens"}
		if r.By == "session" {
			head = append(head, "source", "project", "first", "last")
		}
		// By model the key is the model: a second "model" column would
		// repeat the header's name (a reader keyed by name keeps the
		// empty one) and is left out.
		byModel := r.By == "model"
		if byModel {
			head = slices.Delete(head, 1, 2)
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		write := func(rec []string) error {
			if byModel {
				rec = slices.Delete(rec, 1, 2)
			}
			return cw.Write(rec)
		}
		line := func(key, model string, requests int, t Tokens, c *float64, partial bool, unpriced int) []string {
			cost := ""
			if c != nil {
				cost = strconv.FormatFloat(*c, 'f', -1, 64)
			}
			return []string{cell(key), cell(model), strconv.Itoa(requests), i64(t.Input), i64(t.Output), i64(t.Reasoning),
				i64(t.CacheWrite5m), i64(t.CacheWrite1h), i64(t.CacheRead), i64(t.Total), cost, strconv.FormatBool(partial), strconv.Itoa(unpriced)}
		}
		for _, u := range r.Usage {
			rec := append(line(u.Key, "", u.Requests, u.Tokens, u.Cost, u.CostPartial, u.Unpriced), strconv.Itoa(u.ToolCalls), i64(u.ResultTokens))
			if r.By == "session" {
				first, last := "", ""
				if u.First != nil {
					first, last = u.First.Format("2006-01-02T15:04:05Z07:00"), u.Last.Format("2006-01-02T15:04:05Z07:00")
				}
				rec = append(rec, u.Source, cell(u.Project), first, last)
			}
			if err := write(rec); err != nil {
				return err
			}
			for _, b := range u.Breakdown {
				rec := append(line(u.Key, b.Model, b.Requests, b.Tokens, b.Cost, b.CostPartial, b.Unpriced), "", "")
				if r.By == "session" {
					rec = append(rec, "", "", "", "")
				}
				if err := write(rec); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// cell is text a stranger may control, escaped as textsafe.Text escapes
// it, and with a ' before a first character that a spreadsheet would take
// for the start of a formula (=, +, -, @), so that opening the file never
// runs one.
func cell(s string) string {
	s = textsafe.Text(s)
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func opt(v *int64) string {
	if v == nil {
		return ""
	}
	return i64(*v)
}
