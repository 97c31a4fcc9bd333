package textsafetest

import "testing"

func TestCheckMarkdown(t *testing.T) {
	ok := []string{
		"### MCP context cost\n\n- **Cursor** <code>a&#96;b</code>: 3\n",
		"| a | b |\n|---|---|\n| x &#124; y | 2 |\n",
		"````\nBUDGET FAIL ``` `x` <script> @everyone\n````\n",
		"mail@&#8203;example.com <details><summary>x</summary></details> <br> <sub>s</sub>\n",
	}
	for _, s := range ok {
		if err := CheckMarkdown(s); err != nil {
			t.Errorf("CheckMarkdown(%q) = %v, want nil", s, err)
		}
	}
	bad := []string{
		"a \x1b[2J b",
		"a\u202eb",
		"bad \xff",
		"hi @everyone",
		"<script>alert(1)</script>",
		"[a](https://e.example)",
		"name `x` here",
		"| a | b |\n|---|---|\n| x | y | z |\n",
		"```\nx\n````\n",
		"```\nnever closed\n",
	}
	for _, s := range bad {
		if err := CheckMarkdown(s); err == nil {
			t.Errorf("CheckMarkdown(%q) = nil, want an error", s)
		}
	}
}
