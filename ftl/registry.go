package ftl

import (
	"fmt"
	"sort"
	"strings"
)

// PolicyFactory builds a victim policy. arg is what followed a colon in
// the name it was asked for ("" when there was none), so that a policy
// can take a parameter as d-choices:D does. Each call should return a
// fresh policy: a policy with state of its own must not be shared by two
// drives.
type PolicyFactory func(arg string) (VictimPolicy, error)

// Registry is a set of victim policies by name: the built-in ones and
// those a program registers. It is an explicit value, passed to the
// places that build drives (controller.Config.Policies, the report's
// and the command's options), so that nothing global changes when a
// program adds a policy. The zero value and a nil *Registry know the
// built-in policies only.
type Registry struct {
	user map[string]PolicyFactory
}

// NewRegistry returns a registry of the built-in policies.
func NewRegistry() *Registry { return &Registry{} }

// Register adds a policy under name (lower case letters, digits and
// '-'; parameters follow a colon when the policy is asked for). A name
// that is taken, built in or registered, is an error.
func (r *Registry) Register(name string, f PolicyFactory) error {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return fmt.Errorf("%w: policy name %q: use lower case letters, digits and '-'", ErrConfig, name)
	}
	if f == nil {
		return fmt.Errorf("%w: policy %q: nil factory", ErrConfig, name)
	}
	if _, err := ParsePolicy(name); err == nil || strings.HasPrefix(name, "d-choices") {
		return fmt.Errorf("%w: policy %q is built in", ErrConfig, name)
	}
	if _, ok := r.user[name]; ok {
		return fmt.Errorf("%w: policy %q is registered already", ErrConfig, name)
	}
	if r.user == nil {
		r.user = map[string]PolicyFactory{}
	}
	r.user[name] = f
	return nil
}

// Parse returns a new instance of the policy named s ("name" or
// "name:arg"): a registered one, or a built-in one (see ParsePolicy).
func (r *Registry) Parse(s string) (VictimPolicy, error) {
	if r != nil {
		name, arg, _ := strings.Cut(s, ":")
		if f, ok := r.user[strings.ToLower(name)]; ok {
			p, err := f(arg)
			if err != nil {
				return nil, fmt.Errorf("%w: gc policy %q: %w", ErrConfig, s, err)
			}
			if p == nil {
				return nil, fmt.Errorf("%w: gc policy %q: the factory returned no policy", ErrConfig, s)
			}
			return p, nil
		}
	}
	p, err := ParsePolicy(s)
	if err != nil && r != nil && len(r.user) > 0 {
		return nil, fmt.Errorf("%w: gc policy %q, allowed %s", ErrConfig, s, strings.Join(r.Names(), ", "))
	}
	return p, err
}

// Names lists the policies the registry knows, sorted.
func (r *Registry) Names() []string {
	n := Policies()
	if r != nil {
		for k := range r.user {
			n = append(n, k)
		}
	}
	sort.Strings(n)
	return n
}
