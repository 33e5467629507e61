package docblocks

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	src := "# Title\n\ntext\n\n```sh\necho one\n```\n\n## Section two\n\n- a list item:\n\n  ```sh no-run\n  echo two\n    indented\n  ```\n\n" +
		"~~~~python\nprint('````')\n~~~~\n\n```\n```\n"
	got, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Lang: "sh", Info: []string{}, Section: "Title", Line: 6, Code: "echo one\n"},
		{Lang: "sh", Info: []string{"no-run"}, Section: "Section two", Line: 14, Code: "echo two\n  indented\n"},
		{Lang: "python", Info: []string{}, Section: "Section two", Line: 19, Code: "print('````')\n"},
		{Section: "Section two", Line: 23},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse =\n%#v\nwant\n%#v", got, want)
	}
	if !got[1].Has("no-run") || got[0].Has("no-run") {
		t.Errorf("Has(no-run) wrong: %v, %v", got[0].Has("no-run"), got[1].Has("no-run"))
	}
	if _, err := Parse("```sh\necho\n"); err == nil {
		t.Error("Parse accepted an unclosed block")
	}
}
