package transcript

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/gif" // image sizes for the estimate of image blocks
	_ "image/jpeg"
	_ "image/png"
	"math"
	"strings"
)

// Tool is a tool name taken apart: which MCP server it belongs to, if any.
type Tool struct {
	// Server is the MCP server's name; empty for a built-in tool.
	Server string `json:"server,omitempty"`
	// Plugin is the plugin that bundles the server
	// (mcp__plugin_<plugin>_<server>__<tool>), when there is one.
	Plugin string `json:"plugin,omitempty"`
	// Name is the tool's own name, without the mcp__<server>__ prefix.
	Name string `json:"name"`
	// BuiltIn is set for the agent's own tools (Read, Bash, shell, …).
	BuiltIn bool `json:"builtIn,omitempty"`
}

// ParseToolName takes an agent's tool name apart. MCP tools are named
// mcp__<server>__<tool>; a plugin's server is named
// mcp__plugin_<plugin>_<server>__<tool>. The server part may itself hold
// single underscores and colons; the tool is what follows the first "__"
// after the server. Any other name is a built-in tool.
func ParseToolName(name string) Tool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return Tool{Name: name, BuiltIn: true}
	}
	server, tool, ok := strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return Tool{Name: name, BuiltIn: true}
	}
	t := Tool{Server: server, Name: tool}
	if p, ok := strings.CutPrefix(server, "plugin_"); ok {
		// plugin_<plugin>_<server>: the plugin name is the first part.
		if plugin, srv, ok := strings.Cut(p, "_"); ok && plugin != "" && srv != "" {
			t.Plugin, t.Server = plugin, srv
		}
	}
	return t
}

// Estimates for blocks that are not text. These are documented estimates,
// never exact counts, and every result that holds such a block is flagged.
const (
	// ImageTokensUnknown is charged for an image whose size cannot be read:
	// Anthropic's cost of a full-size image (about 1.15 megapixels).
	ImageTokensUnknown = 1600
	// imageMaxEdge and imageMaxPixels are where Anthropic scales images
	// down before counting them.
	imageMaxEdge   = 1568
	imageMaxPixels = 1_150_000
)

// ImageTokens estimates an image's tokens from its size in pixels with
// Anthropic's published rule: tokens = width × height / 750, after the
// image is scaled down to fit 1568 pixels on its long edge and about 1.15
// megapixels.
func ImageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return ImageTokensUnknown
	}
	fw, fh := float64(w), float64(h)
	if long := math.Max(fw, fh); long > imageMaxEdge {
		s := imageMaxEdge / long
		fw, fh = fw*s, fh*s
	}
	if px := fw * fh; px > imageMaxPixels {
		s := math.Sqrt(imageMaxPixels / px)
		fw, fh = fw*s, fh*s
	}
	return int(math.Ceil(fw * fh / 750))
}

// imageBlockTokens estimates a base64 image block from the size in its
// header (PNG, JPEG, GIF), or charges ImageTokensUnknown.
func imageBlockTokens(data string) int {
	if data == "" {
		return ImageTokensUnknown
	}
	// The header is within the first few kilobytes of the image.
	head := data
	if len(head) > 64<<10 {
		head = head[:64<<10]
	}
	head = head[:len(head)/4*4]
	raw, err := base64.StdEncoding.DecodeString(head)
	if err != nil {
		return ImageTokensUnknown
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return ImageTokensUnknown
	}
	return ImageTokens(cfg.Width, cfg.Height)
}

// addContent adds a result's content (a string or an array of blocks) to r.
// Text blocks are counted exactly later; images are estimated from their
// size; any other block is estimated as the o200k count of its compact JSON,
// which count gives (nil: a byte estimate, one token per 4 bytes). The
// texts are decoded through arena (nil: each a string of its own).
func (r *ToolResult) addContent(content json.RawMessage, arena *textArena, memo *strMemo) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return
	}
	switch content[0] {
	case '"':
		if s, err := arena.text("content", content); err == nil {
			r.addText(s)
		}
		return
	case '[':
		splitArray(content, memo, func(raw []byte) error {
			var typ, text string
			var hasText bool
			var data []byte
			err := splitObjectMemo(raw, memo, func(key string, v []byte) error {
				var err error
				switch key {
				case "type":
					typ, err = view(key, v)
				case "text":
					hasText = len(v) > 0 && v[0] == '"'
					text, err = arena.text(key, v)
				case "data":
					data = v
				case "source":
					splitObject(v, func(key string, v []byte) error {
						if key == "data" {
							data = v
						}
						return nil
					})
				}
				return err
			})
			switch {
			case err != nil:
				r.addOther(raw)
			case typ == "text" && hasText:
				r.addText(text)
			case typ == "image":
				s, _ := str("data", data)
				r.NonText++
				r.EstimatedTokens += imageBlockTokens(s)
			default:
				r.addOther(raw)
			}
			return nil
		})
		return
	}
	r.addOther(content)
}

func (r *ToolResult) addText(s string) {
	r.Texts = append(r.Texts, s)
	r.Bytes += len(s)
	if strings.Contains(s, "/tool-results/") || strings.Contains(s, `\tool-results\`) {
		r.Spilled = true
	}
}

// addOther estimates a block that is neither text nor image: one token per
// four bytes of its compact JSON (o200k_base averages close to four bytes a
// token on JSON).
func (r *ToolResult) addOther(raw json.RawMessage) {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		buf.Reset()
		buf.Write(raw)
	}
	r.NonText++
	r.EstimatedTokens += (buf.Len() + 3) / 4
}
