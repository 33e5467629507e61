package docblocks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// alarmProps are the properties of an AWS::CloudWatch::Alarm the runbook describes.
type alarmProps struct {
	Period            int         `yaml:"Period"`
	EvaluationPeriods int         `yaml:"EvaluationPeriods"`
	DatapointsToAlarm int         `yaml:"DatapointsToAlarm"`
	TreatMissingData  string      `yaml:"TreatMissingData"`
	AlarmActions      []yaml.Node `yaml:"AlarmActions"`
	OKActions         []yaml.Node `yaml:"OKActions"`
	Metrics           []struct {
		MetricStat *struct {
			Period int `yaml:"Period"`
		} `yaml:"MetricStat"`
	} `yaml:"Metrics"`
}

// period is the alarm's period in seconds, its own or its metrics' (metric math).
func (a alarmProps) period() int {
	if a.Period != 0 {
		return a.Period
	}
	for _, m := range a.Metrics {
		if m.MetricStat != nil {
			return m.MetricStat.Period
		}
	}
	return 0
}

// timing says when an alarm fires as the runbook must: "in 2 of 5 minutes", "for 5 minutes in a
// row", "over 15 minutes".
func (a alarmProps) timing() string {
	p, n, m := a.period(), a.EvaluationPeriods, a.DatapointsToAlarm
	if m == 0 {
		m = n
	}
	span := map[int]string{60: "a minute", 3600: "an hour", 86400: "a day"}[p]
	if span == "" {
		span = fmt.Sprintf("%d minutes", p/60)
	}
	switch {
	case n == 1:
		return "over " + span
	case p == 60 && m < n:
		return fmt.Sprintf("in %d of %d minutes", m, n)
	case p == 60:
		return fmt.Sprintf("for %d minutes in a row", n)
	case m < n:
		return fmt.Sprintf("in %d of %d periods of %s", m, n, span)
	default:
		return fmt.Sprintf("for %d periods of %s in a row", n, span)
	}
}

// missingData names TreatMissingData as the runbook's column does.
var missingData = map[string]string{"notBreaching": "not breaching", "breaching": "breaching", "ignore": "ignored", "missing": "missing"}

// TestRunbookMatchesTemplate: every alarm of template.yaml has a row in docs/operations.md whose
// timing and missing-data rule are the template's, every row names alarms that exist, every
// function and table has its errors/throttles alarms and its place on the dashboard, and every
// alarm notifies the topic when it fires and when it recovers.
func TestRunbookMatchesTemplate(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string    `yaml:"Type"`
			Properties yaml.Node `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(data, &tpl); err != nil {
		t.Fatal(err)
	}
	alarms := map[string]alarmProps{}
	var functions, tables []string
	var dashboard string
	for id, r := range tpl.Resources {
		switch r.Type {
		case "AWS::CloudWatch::Alarm":
			var a alarmProps
			if err := r.Properties.Decode(&a); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			alarms[id] = a
		case "AWS::Serverless::Function", "AWS::Lambda::Function":
			functions = append(functions, id)
		case "AWS::DynamoDB::Table":
			tables = append(tables, id)
		case "AWS::CloudWatch::Dashboard":
			var d struct {
				Body string `yaml:"DashboardBody"`
			}
			if err := r.Properties.Decode(&d); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			dashboard += d.Body
		}
	}
	if len(alarms) == 0 || len(functions) == 0 || len(tables) == 0 || dashboard == "" {
		t.Fatalf("template.yaml: %d alarms, %d functions, %d tables, dashboard %d bytes: the parse is broken",
			len(alarms), len(functions), len(tables), len(dashboard))
	}

	// Every function and table: its alarms and its dashboard lines, like the others.
	for _, f := range functions {
		base := strings.TrimSuffix(f, "Function")
		for _, a := range []string{base + "ErrorsAlarm", base + "ThrottlesAlarm"} {
			if _, ok := alarms[a]; !ok {
				t.Errorf("template.yaml: function %s has no %s", f, a)
			}
		}
		if !strings.Contains(dashboard, "${"+f+"}") {
			t.Errorf("template.yaml: the dashboard does not show %s", f)
		}
	}
	for _, tb := range tables {
		for _, a := range []string{tb + "ThrottledRequestsAlarm", tb + "SystemErrorsAlarm"} {
			if _, ok := alarms[a]; !ok {
				t.Errorf("template.yaml: table %s has no %s", tb, a)
			}
		}
		if !strings.Contains(dashboard, "${"+tb+"}") {
			t.Errorf("template.yaml: the dashboard does not show %s", tb)
		}
	}
	for id, a := range alarms {
		if len(a.AlarmActions) == 0 || len(a.OKActions) == 0 {
			t.Errorf("template.yaml: %s does not notify both when it fires and when it recovers (AlarmActions, OKActions)", id)
		}
	}

	rows := alarmRows(t, filepath.Join(root, "docs", "operations.md"))
	named := map[string]int{}
	for _, row := range rows {
		for _, id := range row.alarms {
			named[id]++
			a, ok := alarms[id]
			if !ok {
				t.Errorf("docs/operations.md:%d names %s, which template.yaml does not have", row.line, id)
				continue
			}
			if want := a.timing(); !strings.Contains(row.firesWhen, want) {
				t.Errorf("docs/operations.md:%d: %s fires %q (Period %d, EvaluationPeriods %d, DatapointsToAlarm %d); the row says %q",
					row.line, id, want, a.period(), a.EvaluationPeriods, a.DatapointsToAlarm, row.firesWhen)
			}
			if want := missingData[a.TreatMissingData]; row.missing != want {
				t.Errorf("docs/operations.md:%d: %s treats missing data as %q (TreatMissingData %q); the row says %q",
					row.line, id, want, a.TreatMissingData, row.missing)
			}
		}
	}
	for id := range alarms {
		switch named[id] {
		case 0:
			t.Errorf("docs/operations.md has no row for %s (what it means, what to do)", id)
		case 1:
		default:
			t.Errorf("docs/operations.md names %s in %d rows", id, named[id])
		}
	}
}

// alarmRow is one row of the runbook's alarm table.
type alarmRow struct {
	line               int
	alarms             []string
	firesWhen, missing string
}

var alarmName = regexp.MustCompile("`(\\w+Alarm)`")

// alarmRows reads the table of the "The alarms" section.
func alarmRows(t *testing.T, path string) []alarmRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		rows    []alarmRow
		section string
		cols    map[string]int
	)
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
			continue
		}
		if section != "The alarms" || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if cols == nil {
			cols = map[string]int{}
			for j, c := range cells {
				cols[c] = j
			}
			for _, c := range []string{"alarm", "fires when", "missing data", "what it means", "what to do"} {
				if _, ok := cols[c]; !ok {
					t.Fatalf("%s: the alarm table has no %q column (%v)", path, c, cells)
				}
			}
			continue
		}
		if strings.Trim(line, "|-: ") == "" {
			continue // the separator row
		}
		if len(cells) != len(cols) {
			t.Errorf("%s:%d: %d cells; the table has %d columns", path, i+1, len(cells), len(cols))
			continue
		}
		row := alarmRow{line: i + 1, firesWhen: cells[cols["fires when"]], missing: cells[cols["missing data"]]}
		for _, m := range alarmName.FindAllStringSubmatch(cells[cols["alarm"]], -1) {
			row.alarms = append(row.alarms, m[1])
		}
		if len(row.alarms) == 0 {
			t.Errorf("%s:%d: the row names no alarm", path, i+1)
		}
		for _, c := range []string{"what it means", "what to do"} {
			if cells[cols[c]] == "" {
				t.Errorf("%s:%d: %q is empty", path, i+1, c)
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no alarm table under \"The alarms\"", path)
	}
	return rows
}
