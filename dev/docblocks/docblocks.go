// Package docblocks reads the fenced code blocks of a Markdown file, so that tests can run the
// examples the project's docs show (the README's walk-through, the signature recipes) exactly as
// a reader copies them. Its own tests hold the docs to the repository: they cite no file outside
// it, and the runbook (docs/operations.md) describes every alarm of template.yaml as the template
// sets it.
package docblocks

import (
	"fmt"
	"os"
	"strings"
)

// Block is one fenced code block.
type Block struct {
	// Lang is the first word of the fence's info string ("sh", "python", "js"), Info the words
	// after it (```sh no-run gives Lang "sh" and Info ["no-run"]).
	Lang string
	Info []string
	// Section is the text of the nearest heading above the block.
	Section string
	// Line is the 1-based line of the block's first code line in the file.
	Line int
	// Code is the block's content, without the fences and without the fence's indentation (a
	// block inside a list item).
	Code string
}

// Has reports whether word is one of the info string's words after the language.
func (b Block) Has(word string) bool {
	for _, w := range b.Info {
		if w == word {
			return true
		}
	}
	return false
}

// Read parses the Markdown file at path.
func Read(path string) ([]Block, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blocks, err := Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return blocks, nil
}

// Parse returns the fenced code blocks of a Markdown text, in order. A fence is three or more
// backticks or tildes, indented by at most three spaces more than the list item it may sit in;
// the block ends at a fence of the same character at least as long. An unclosed fence is an error.
func Parse(src string) ([]Block, error) {
	var (
		blocks  []Block
		section string
		open    *Block
		fence   string // the opening fence's characters
		indent  int    // the opening fence's indentation
		code    []string
	)
	lines := strings.Split(src, "\n")
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		ind := len(line) - len(trimmed)
		if open != nil {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				open.Code = strings.Join(code, "\n")
				if len(code) > 0 {
					open.Code += "\n"
				}
				blocks = append(blocks, *open)
				open, code = nil, nil
				continue
			}
			// Remove up to the fence's indentation, as Markdown does.
			n := 0
			for n < indent && n < len(line) && line[n] == ' ' {
				n++
			}
			code = append(code, line[n:])
			continue
		}
		if strings.HasPrefix(trimmed, "#") && ind == 0 {
			section = strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
			continue
		}
		for _, c := range []string{"`", "~"} {
			if !strings.HasPrefix(trimmed, c+c+c) {
				continue
			}
			n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
			words := strings.Fields(trimmed[n:])
			b := &Block{Section: section, Line: i + 2}
			if len(words) > 0 {
				b.Lang, b.Info = words[0], words[1:]
			}
			open, fence, indent = b, strings.Repeat(c, n), ind
			break
		}
	}
	if open != nil {
		return nil, fmt.Errorf("line %d: code block never closed", open.Line-1)
	}
	return blocks, nil
}
