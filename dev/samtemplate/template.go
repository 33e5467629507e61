// Package samtemplate reads the project's SAM template (template.yaml) so that the local stack, the
// tests and the bench build their DynamoDB tables, queues and function environments from the same
// definitions that are deployed to AWS: there is no second copy of a key schema, an index or an
// environment variable name. Provision creates them all, for each of the three.
//
// The template is parsed with the yaml.v3 node API, so CloudFormation's short-form tags (!Ref,
// !GetAtt, !Sub, !If, ...) parse like their long forms ({"Ref": ...}, {"Fn::GetAtt": ...}). Only the
// parts the local stack needs are interpreted; properties that only matter on AWS (deletion
// protection, point-in-time recovery, encryption, tags) are accepted and ignored.
package samtemplate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Resource types the package interprets.
const (
	typeTable    = "AWS::DynamoDB::Table"
	typeFunction = "AWS::Serverless::Function"
	typeQueue    = "AWS::SQS::Queue"
	typeAPI      = "AWS::Serverless::Api"
)

// Template is a parsed SAM template. It is immutable after Load and safe for concurrent use.
type Template struct {
	params    map[string]parameter
	globalEnv map[string]any // Globals.Function.Environment.Variables
	globalFn  map[string]any // Globals.Function
	resources map[string]resource
	tables    []Table
	queues    []Queue
}

type parameter struct {
	def        string
	hasDefault bool
}

type resource struct {
	typ   string
	props map[string]any
}

// intrinsic is a CloudFormation intrinsic function call such as !Ref X or {"Fn::GetAtt": [X, Arn]}.
// name is the long form ("Ref", "Fn::GetAtt", "Fn::Sub", ...).
type intrinsic struct {
	name string
	arg  any
}

// Load reads and parses the SAM template at path. It fails when the file cannot be read, is not
// YAML, or defines a table or queue whose definition cannot be turned into a local one.
func Load(path string) (*Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("samtemplate: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("samtemplate: %s: %w", path, err)
	}
	return t, nil
}

// Parse parses a SAM template held in memory; see Load.
func Parse(data []byte) (*Template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	v, err := decode(&doc)
	if err != nil {
		return nil, err
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("template is not a mapping")
	}
	t := &Template{params: map[string]parameter{}, resources: map[string]resource{}}

	params, err := optMapping(root["Parameters"], "Parameters")
	if err != nil {
		return nil, err
	}
	for name, p := range params {
		pm, err := mapping(p, "Parameters."+name)
		if err != nil {
			return nil, err
		}
		var par parameter
		if d, ok := pm["Default"]; ok {
			if par.def, err = scalar(d, "Parameters."+name+".Default"); err != nil {
				return nil, err
			}
			par.hasDefault = true
		}
		t.params[name] = par
	}

	if t.globalEnv, err = envVariables(root["Globals"], "Globals", "Function"); err != nil {
		return nil, err
	}
	if globals, err := optMapping(root["Globals"], "Globals"); err != nil {
		return nil, err
	} else if t.globalFn, err = optMapping(globals["Function"], "Globals.Function"); err != nil {
		return nil, err
	}

	res, err := mapping(root["Resources"], "Resources")
	if err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(res) {
		r, err := mapping(res[id], "Resources."+id)
		if err != nil {
			return nil, err
		}
		typ, err := scalar(r["Type"], "Resources."+id+".Type")
		if err != nil {
			return nil, err
		}
		props, err := optMapping(r["Properties"], "Resources."+id+".Properties")
		if err != nil {
			return nil, err
		}
		t.resources[id] = resource{typ: typ, props: props}
		switch typ {
		case typeTable:
			tb, err := parseTable(id, props)
			if err != nil {
				return nil, err
			}
			t.tables = append(t.tables, tb)
		case typeQueue:
			q, err := parseQueue(id, props)
			if err != nil {
				return nil, err
			}
			t.queues = append(t.queues, q)
		}
	}
	if t.queues, err = orderQueues(t.queues); err != nil {
		return nil, err
	}
	return t, nil
}

// LoadModule finds (Find) and loads (Load) the template of the Go module that contains the working
// directory, and returns it with its path.
func LoadModule() (*Template, string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", fmt.Errorf("samtemplate: %w", err)
	}
	path, err := Find(wd)
	if err != nil {
		return nil, "", err
	}
	tpl, err := Load(path)
	return tpl, path, err
}

// Find returns the path of template.yaml at the root of the Go module that contains dir: it walks up
// from dir to the first directory holding go.mod. It fails when there is no such directory or it has
// no template.yaml.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("samtemplate: %w", err)
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			p := filepath.Join(d, "template.yaml")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("samtemplate: module root %s has no template.yaml: %w", d, err)
			}
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("samtemplate: no go.mod in %s or any parent", dir)
		}
		d = parent
	}
}

// decode turns a YAML node into plain values: string for every scalar (CloudFormation is loosely
// typed, callers convert), nil for null, []any, map[string]any, and intrinsic for !Tag short forms
// and single-key {"Ref"|"Fn::*": ...} mappings.
func decode(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return decode(n.Content[0])
	case yaml.AliasNode:
		return decode(n.Alias)
	}
	var v any
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			v = nil
		} else {
			v = n.Value
		}
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			cv, err := decode(c)
			if err != nil {
				return nil, err
			}
			list = append(list, cv)
		}
		v = list
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Value == "<<" {
				return nil, fmt.Errorf("line %d: YAML merge keys are not supported by CloudFormation", k.Line)
			}
			cv, err := decode(val)
			if err != nil {
				return nil, err
			}
			m[k.Value] = cv
		}
		if len(m) == 1 {
			for k, arg := range m {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					v = intrinsic{name: k, arg: arg}
				}
			}
		}
		if v == nil {
			v = m
		}
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node kind %v", n.Line, n.Kind)
	}
	if tag := n.Tag; strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!") {
		name := tag[1:]
		if name != "Ref" && name != "Condition" {
			name = "Fn::" + name
		}
		if name == "Fn::GetAtt" {
			// The short form takes "Resource.Attribute"; normalise it to the long form's list.
			if s, ok := v.(string); ok {
				res, attr, _ := strings.Cut(s, ".")
				v = []any{res, attr}
			}
		}
		return intrinsic{name: name, arg: v}, nil
	}
	return v, nil
}

// envVariables returns the Environment.Variables mapping under section[key] (for Globals.Function
// or a function's Properties), or nil when absent.
func envVariables(section any, path, key string) (map[string]any, error) {
	s, err := optMapping(section, path)
	if err != nil || s == nil {
		return nil, err
	}
	if key != "" {
		if s, err = optMapping(s[key], path+"."+key); err != nil || s == nil {
			return nil, err
		}
	}
	env, err := optMapping(s["Environment"], path+".Environment")
	if err != nil || env == nil {
		return nil, err
	}
	return optMapping(env["Variables"], path+".Environment.Variables")
}

func mapping(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a mapping, got %s", path, describe(v))
	}
	return m, nil
}

func optMapping(v any, path string) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	return mapping(v, path)
}

func list(v any, path string) ([]any, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list, got %s", path, describe(v))
	}
	return l, nil
}

func optList(v any, path string) ([]any, error) {
	if v == nil {
		return nil, nil
	}
	return list(v, path)
}

// scalar returns a literal scalar; an intrinsic function there is an error because the local stack
// needs the value itself.
func scalar(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a literal value, got %s", path, describe(v))
	}
	return s, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("%q", v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case intrinsic:
		return v.name
	default:
		return fmt.Sprintf("%T", v)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
