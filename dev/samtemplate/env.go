package samtemplate

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Functions returns the logical ids of the template's AWS::Serverless::Function resources, sorted.
func (t *Template) Functions() []string {
	var ids []string
	for _, id := range sortedKeys(t.resources) {
		if t.resources[id].typ == typeFunction {
			ids = append(ids, id)
		}
	}
	return ids
}

// FunctionTimeout returns the function's Timeout (its own, else Globals.Function's; Lambda's 3 s
// when neither says), the deadline Lambda gives each of its invocations. It fails when the
// template has no such function or the timeout is not a whole number of seconds.
func (t *Template) FunctionTimeout(function string) (time.Duration, error) {
	r, ok := t.resources[function]
	if !ok || r.typ != typeFunction {
		return 0, fmt.Errorf("samtemplate: no %s named %q", typeFunction, function)
	}
	v, path := r.props["Timeout"], "Resources."+function+".Properties.Timeout"
	if v == nil {
		v, path = t.globalFn["Timeout"], "Globals.Function.Timeout"
	}
	if v == nil {
		return 3 * time.Second, nil
	}
	n, err := integer(v, path)
	if err != nil {
		return 0, fmt.Errorf("samtemplate: %w", err)
	}
	return time.Duration(n) * time.Second, nil
}

// GlobalEnv resolves Globals.Function.Environment.Variables. refs gives the local value of each
// resource a !Ref may name, by logical id: a table's name (what !Ref of a table returns on AWS), later
// a queue's URL. Literal values are kept, a !Ref to a parameter gives its default, and !Sub is
// expanded with the same rules (AWS::Region and AWS::URLSuffix have local values). A variable that
// names a REST API is left out: its address exists only on AWS, and the local stack sets it itself.
// Anything else (a !Ref to a resource missing from refs, !GetAtt, !If) is an error naming the
// variable.
func (t *Template) GlobalEnv(refs map[string]string) (map[string]string, error) {
	return t.resolveEnv(t.globalEnv, "Globals.Function.Environment.Variables", refs)
}

// FunctionEnv resolves the environment the function with the given logical id receives: the global
// variables overlaid with its own Environment.Variables, resolved as GlobalEnv does. It fails when
// the template has no such function.
func (t *Template) FunctionEnv(function string, refs map[string]string) (map[string]string, error) {
	r, ok := t.resources[function]
	if !ok || r.typ != typeFunction {
		return nil, fmt.Errorf("samtemplate: no %s named %q", typeFunction, function)
	}
	own, err := envVariables(r.props, "Resources."+function+".Properties", "")
	if err != nil {
		return nil, fmt.Errorf("samtemplate: %w", err)
	}
	env, err := t.GlobalEnv(refs)
	if err != nil {
		return nil, err
	}
	fn, err := t.resolveEnv(own, "Resources."+function+".Properties.Environment.Variables", refs)
	if err != nil {
		return nil, err
	}
	for k, v := range fn {
		env[k] = v
	}
	return env, nil
}

// Env is the environment of one process that runs every function, as the local stack does: the
// union of FunctionEnv over all functions. It fails when two functions give one variable different
// values, since one process cannot honour both.
func (t *Template) Env(refs map[string]string) (map[string]string, error) {
	env, err := t.GlobalEnv(refs)
	if err != nil {
		return nil, err
	}
	from := map[string]string{}
	for _, fn := range t.Functions() {
		fe, err := t.FunctionEnv(fn, refs)
		if err != nil {
			return nil, err
		}
		for k, v := range fe {
			if prev, ok := from[k]; ok && env[k] != v {
				return nil, fmt.Errorf("samtemplate: %s is %q for %s but %q for %s", k, env[k], prev, v, fn)
			}
			env[k], from[k] = v, fn
		}
	}
	return env, nil
}

func (t *Template) resolveEnv(vars map[string]any, path string, refs map[string]string) (map[string]string, error) {
	env := make(map[string]string, len(vars))
	for _, k := range sortedKeys(vars) {
		v, err := t.resolve(vars[k], refs)
		if errors.Is(err, errLocalAPI) || errors.Is(err, errLocalDistribution) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("samtemplate: %s.%s: %w", path, k, err)
		}
		env[k] = v
	}
	return env, nil
}

// resolve turns a value into the string the local stack uses for it.
func (t *Template) resolve(v any, refs map[string]string) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case intrinsic:
		switch v.name {
		case "Ref":
			name, ok := v.arg.(string)
			if !ok {
				return "", fmt.Errorf("!Ref takes a name, got %s", describe(v.arg))
			}
			return t.ref(name, refs)
		case "Fn::Sub":
			return t.sub(v.arg, refs)
		}
		return "", fmt.Errorf("%s cannot be resolved by the local stack", v.name)
	default:
		return "", fmt.Errorf("want a string, got %s", describe(v))
	}
}

func (t *Template) ref(name string, refs map[string]string) (string, error) {
	if v, ok := refs[name]; ok {
		return v, nil
	}
	if v, ok := localPseudo[name]; ok {
		return v, nil
	}
	if r, ok := t.resources[name]; ok && r.typ == typeAPI {
		return "", errLocalAPI
	}
	if r, ok := t.resources[strings.Split(name, ".")[0]]; ok && r.typ == typeDistribution {
		return "", errLocalDistribution
	}
	if p, ok := t.params[name]; ok {
		if !p.hasDefault {
			return "", fmt.Errorf("parameter %s has no default", name)
		}
		return p.def, nil
	}
	if _, ok := t.resources[name]; ok {
		return "", fmt.Errorf("no local value for resource %s", name)
	}
	return "", fmt.Errorf("!Ref %s names nothing known", name)
}

// errLocalAPI marks a variable that names a REST API: its id only makes a URL on AWS, and the
// local stack, which serves its APIs itself, sets such a variable (CONSOLE_URL) to its own address.
// The resolved environment leaves it out.
var errLocalAPI = errors.New("names a REST API, which only has an address on AWS")

// localPseudo are the local values of the pseudo parameters a variable may name.
var localPseudo = map[string]string{"AWS::Region": "us-east-1", "AWS::URLSuffix": "amazonaws.com"}

// sub expands Fn::Sub: "${Name}" as !Ref Name (or "Name.Attr" when refs has that key), "${!x}" as
// the literal "${x}", and the list form's own variables first.
func (t *Template) sub(arg any, refs map[string]string) (string, error) {
	format, vars := "", map[string]string{}
	switch a := arg.(type) {
	case string:
		format = a
	case []any:
		if len(a) != 2 {
			return "", fmt.Errorf("Fn::Sub takes a string or [string, mapping]")
		}
		s, ok := a[0].(string)
		m, ok2 := a[1].(map[string]any)
		if !ok || !ok2 {
			return "", fmt.Errorf("Fn::Sub takes a string or [string, mapping]")
		}
		format = s
		for k, v := range m {
			r, err := t.resolve(v, refs)
			if err != nil {
				return "", fmt.Errorf("Fn::Sub variable %s: %w", k, err)
			}
			vars[k] = r
		}
	default:
		return "", fmt.Errorf("Fn::Sub takes a string or [string, mapping]")
	}
	var b strings.Builder
	for {
		i := strings.Index(format, "${")
		if i < 0 {
			b.WriteString(format)
			return b.String(), nil
		}
		j := strings.IndexByte(format[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("Fn::Sub: unclosed ${ in %q", format)
		}
		b.WriteString(format[:i])
		name := format[i+2 : i+j]
		format = format[i+j+1:]
		switch v, ok := vars[name]; {
		case strings.HasPrefix(name, "!"):
			b.WriteString("${" + name[1:] + "}")
		case ok:
			b.WriteString(v)
		default:
			r, err := t.ref(name, refs)
			if err != nil {
				return "", fmt.Errorf("Fn::Sub: %w", err)
			}
			b.WriteString(r)
		}
	}
}
