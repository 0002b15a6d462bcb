package compile

import (
	"strconv"
	"strings"
	"unicode"
)

// servers renders the preamble's Servers section (SPEC.md §11) from the
// trace's meta.servers: one bullet per server in --wrap order, with every
// tool it offered, so that `reelier run` can start them and a dry run can
// name them. It returns "" when the meta lists no servers. The output
// depends only on the meta.
func (c *compiler) servers() string {
	if c.meta == nil || len(c.meta.Servers) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Servers\n\nRecorded with these MCP servers. `reelier run` starts them, in this order, once you have trusted this file (`--servers-from-skill`); `--wrap` replaces them.\n\n")
	taken := map[string]bool{}
	wrote := false
	for k, sv := range c.meta.Servers {
		command := serverText(sv.Command)
		if strings.TrimSpace(command) == "" {
			continue // nothing could have started it
		}
		name := oneLine(sv.Name)
		if name == "" {
			name = "server-" + strconv.Itoa(k+1)
		}
		for base, n := name, 2; taken[name]; n++ {
			name = base + "-" + strconv.Itoa(n)
		}
		taken[name] = true
		b.WriteString("- ")
		b.WriteString(codeSpan(name))
		b.WriteString(": ")
		b.WriteString(codeSpan(command))
		var tools []string
		for _, t := range sv.Tools {
			if t != "" && strings.IndexFunc(t, unicode.IsControl) < 0 {
				tools = append(tools, toolItem(t))
			}
		}
		if len(tools) > 0 {
			b.WriteString(" (tools: ")
			b.WriteString(strings.Join(tools, ", "))
			b.WriteString(")")
		}
		var headers []string
		for _, h := range sv.Headers {
			h = serverText(h)
			if name, _, ok := strings.Cut(h, ":"); ok && strings.TrimSpace(name) != "" && !strings.ContainsAny(strings.TrimSpace(name), " \t") {
				headers = append(headers, codeSpan(h))
			}
		}
		if len(headers) > 0 {
			b.WriteString(" (headers: ")
			b.WriteString(strings.Join(headers, ", "))
			b.WriteString(")")
		}
		b.WriteString("\n")
		wrote = true
	}
	if !wrote {
		return ""
	}
	b.WriteString("\n")
	return b.String()
}

// serverText makes a command fit on one line: every control character
// (a line break, a tab) becomes a blank, which is what splitting the
// command makes of it outside quotes.
func serverText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// toolItem writes a tool name bare when the section's grammar reads it
// back as it is, and as a code span otherwise.
func toolItem(t string) string {
	if strings.ContainsAny(t, " \t,()`") {
		return codeSpan(t)
	}
	return t
}

// codeSpan writes s as a Markdown code span that reads back as exactly s:
// delimited by one more backtick than its longest run of backticks, and
// padded with a blank at each end when s starts or ends with a backtick
// or would lose a blank at each end.
func codeSpan(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	delim := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		len(s) >= 2 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		pad = " "
	}
	return delim + pad + s + pad + delim
}
