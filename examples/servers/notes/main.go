// Command notes is a small MCP server that keeps notes in memory: the kind
// of server people wire into their agents. It serves over stdio, or over
// Streamable HTTP with -http ADDR.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type note struct {
	ID      int       `json:"id"`
	Title   string    `json:"title"`
	Body    string    `json:"body"`
	Tags    []string  `json:"tags,omitempty"`
	Created time.Time `json:"created"`
}

type store struct {
	mu    sync.Mutex
	next  int
	notes map[int]note
}

type addIn struct {
	Title string   `json:"title" jsonschema:"a short title for the note"`
	Body  string   `json:"body" jsonschema:"the text of the note, Markdown allowed"`
	Tags  []string `json:"tags,omitempty" jsonschema:"optional tags used by search_notes and list_notes"`
}

type listIn struct {
	Tag   string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
	Limit int    `json:"limit,omitempty" jsonschema:"the most notes to return (default 20)"`
}

type searchIn struct {
	Query string `json:"query" jsonschema:"words to look for in titles and bodies (case-insensitive)"`
}

type idIn struct {
	ID int `json:"id" jsonschema:"the note's id, as returned by add_note or list_notes"`
}

type notesOut struct {
	Notes []note `json:"notes"`
}

func (s *store) add(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, note, error) {
	if strings.TrimSpace(in.Title) == "" {
		return nil, note{}, fmt.Errorf("a note needs a title")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	n := note{ID: s.next, Title: in.Title, Body: in.Body, Tags: in.Tags, Created: time.Now().UTC()}
	s.notes[n.ID] = n
	return nil, n, nil
}

func (s *store) sorted(keep func(note) bool, limit int) []note {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []note{}
	for _, n := range s.notes {
		if keep(n) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func (s *store) list(_ context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, notesOut, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	return nil, notesOut{s.sorted(func(n note) bool {
		if in.Tag == "" {
			return true
		}
		for _, t := range n.Tags {
			if strings.EqualFold(t, in.Tag) {
				return true
			}
		}
		return false
	}, limit)}, nil
}

func (s *store) search(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, notesOut, error) {
	q := strings.ToLower(in.Query)
	return nil, notesOut{s.sorted(func(n note) bool {
		return strings.Contains(strings.ToLower(n.Title+"\n"+n.Body), q)
	}, 0)}, nil
}

func (s *store) delete(_ context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.notes[in.ID]; !ok {
		return nil, nil, fmt.Errorf("no note with id %d", in.ID)
	}
	delete(s.notes, in.ID)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("deleted note %d", in.ID)}}}, nil, nil
}

func newServer() *mcp.Server {
	s := &store{notes: map[int]note{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "Notes kept in memory for this session. Use add_note to remember something, search_notes or list_notes to find it again.",
	})
	mcp.AddTool(server, &mcp.Tool{Name: "add_note", Description: "Add a note. Returns the stored note with its id.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: false}}, s.add)
	mcp.AddTool(server, &mcp.Tool{Name: "list_notes", Description: "List notes, oldest first, optionally only those with a tag.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.list)
	mcp.AddTool(server, &mcp.Tool{Name: "search_notes", Description: "Search the titles and bodies of all notes for words, case-insensitively.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.search)
	mcp.AddTool(server, &mcp.Tool{Name: "delete_note", Description: "Delete a note by id. This cannot be undone."}, s.delete)
	server.AddPrompt(&mcp.Prompt{Name: "summarize_notes", Description: "Summarize every note with a given tag.",
		Arguments: []*mcp.PromptArgument{{Name: "tag", Description: "the tag to summarize", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Summarize my notes tagged " + req.Params.Arguments["tag"] + "."}}}}, nil
		})
	return server
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (default: stdio)")
	flag.Parse()
	server := newServer()
	if *addr != "" {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
		log.Fatal(http.ListenAndServe(*addr, h))
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
