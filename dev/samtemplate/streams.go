package samtemplate

import (
	"fmt"
	"strings"
)

// StreamFilters returns, for each DynamoDB stream event source of the function, the logical id of
// its table and the patterns of its FilterCriteria (JSON, as Lambda reads them; none: every
// record). The local stack's pollers filter records as Lambda does with them. It fails when the
// template has no such function or an event source names its stream otherwise than
// !GetAtt <Table>.StreamArn.
func (t *Template) StreamFilters(function string) (map[string][]string, error) {
	r, ok := t.resources[function]
	if !ok || r.typ != typeFunction {
		return nil, fmt.Errorf("samtemplate: no %s named %q", typeFunction, function)
	}
	evs, err := optMapping(r.props["Events"], "Resources."+function+".Properties.Events")
	if err != nil {
		return nil, fmt.Errorf("samtemplate: %w", err)
	}
	out := map[string][]string{}
	for _, name := range sortedKeys(evs) {
		path := "Resources." + function + ".Properties.Events." + name
		ev, err := mapping(evs[name], path)
		if err != nil {
			return nil, fmt.Errorf("samtemplate: %w", err)
		}
		if typ, _ := ev["Type"].(string); typ != "DynamoDB" {
			continue
		}
		props, err := mapping(ev["Properties"], path+".Properties")
		if err != nil {
			return nil, fmt.Errorf("samtemplate: %w", err)
		}
		stream, ok := props["Stream"].(intrinsic)
		args, _ := stream.arg.([]any)
		if !ok || stream.name != "Fn::GetAtt" || len(args) != 2 || args[1] != "StreamArn" {
			return nil, fmt.Errorf("samtemplate: %s.Properties.Stream: want !GetAtt <Table>.StreamArn, got %s", path, describe(props["Stream"]))
		}
		table, _ := args[0].(string)
		out[table] = []string{}
		criteria, err := optMapping(props["FilterCriteria"], path+".Properties.FilterCriteria")
		if err != nil {
			return nil, fmt.Errorf("samtemplate: %w", err)
		}
		filters, err := optList(criteria["Filters"], path+".Properties.FilterCriteria.Filters")
		if err != nil {
			return nil, fmt.Errorf("samtemplate: %w", err)
		}
		for i, f := range filters {
			fm, err := mapping(f, fmt.Sprintf("%s.Properties.FilterCriteria.Filters[%d]", path, i))
			if err != nil {
				return nil, fmt.Errorf("samtemplate: %w", err)
			}
			pattern, err := scalar(fm["Pattern"], fmt.Sprintf("%s.Properties.FilterCriteria.Filters[%d].Pattern", path, i))
			if err != nil {
				return nil, fmt.Errorf("samtemplate: %w", err)
			}
			out[table] = append(out[table], strings.TrimSpace(pattern))
		}
	}
	return out, nil
}
