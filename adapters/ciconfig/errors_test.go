package ciconfig_test

import (
	"testing"
)

// TestParseErrors checks GitLab's messages, taken from 9.x's
// yaml_processor_spec and entry classes (and later GitLab's where 9.x had
// none).
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "Please provide content of .gitlab-ci.yml"},
		{"blank", "  \n\n", "Please provide content of .gitlab-ci.yml"},
		{"comments only", "# nothing\n", "Invalid configuration format"},
		{"not a mapping", "invalid_yaml", "Invalid configuration format"},
		{"a list", "- a\n- b\n", "Invalid configuration format"},
		{"unknown alias", "steps: *bad_alias", "Unknown alias: bad_alias"},
		{"no jobs", "before_script: [bundle update]\n", "jobs config should contain at least one visible job"},
		{"only hidden jobs", "before_script: [bundle update]\n.hidden:\n  script: ls\n", "jobs config should contain at least one visible job"},
		{"later keywords", "default:\n  image: ruby\nworkflow:\n  rules: []\nrspec:\n  script: x\n", "root config contains unknown keys: default, workflow"},

		{"script blank", "test:\n  stage: test\n", "jobs:test script can't be blank"},
		{"script empty list", "test:\n  script: []\n", "jobs:test script can't be blank"},
		{"script not strings", "test:\n  script: [1, 2]\n", "jobs:test:script config should be a string or an array of strings"},
		{"script a hash", "test:\n  script:\n    echo: hi\n", "jobs:test:script config should be a string or an array of strings"},
		{"job not a hash", "extra: bundle update\n", "jobs:extra config should be a hash"},
		{"job null", "extra:\n", "jobs:extra config can't be blank"},
		{"job empty hash", "extra: {}\n", "jobs:extra config can't be blank"},
		{"job unknown keys", "rspec:\n  script: x\n  foo: 1\n  bar: 2\n", "jobs:rspec config contains unknown keys: foo, bar"},
		{"job name blank", "'':\n  script: test\n", "jobs:job name can't be blank"},
		{"job name integer", "10:\n  script: test\n", "jobs:10 name should be a symbol"},
		{"job name too long", longName() + ":\n  script: x\n", "jobs:" + longName() + " name is too long (maximum is 255 characters)"},

		{"when", "build:\n  script: x\n  when: later\n", "jobs:build when should be on_success, on_failure, always or manual"},
		{"when integer", "rspec:\n  script: test\n  when: 1\n", "jobs:rspec when should be on_success, on_failure, always or manual"},
		{"allow_failure", "rspec:\n  script: test\n  allow_failure: string\n", "jobs:rspec allow failure should be a boolean value"},
		{"tags", "rspec:\n  script: test\n  tags: mysql\n", "jobs:rspec tags should be an array of strings"},
		{"dependencies", "rspec:\n  script: test\n  dependencies: string\n", "jobs:rspec dependencies should be an array of strings"},
		{"retry too big", "rspec:\n  script: test\n  retry: 3\n", "jobs:rspec retry must be less than or equal to 2"},
		{"retry negative", "rspec:\n  script: test\n  retry: -1\n", "jobs:rspec retry must be greater than or equal to 0"},
		{"retry float", "rspec:\n  script: test\n  retry: 1.5\n", "jobs:rspec retry must be an integer"},
		{"retry word", "rspec:\n  script: test\n  retry: twice\n", "jobs:rspec retry is not a number"},
		{"retry huge", "rspec:\n  script: test\n  retry: 99999999999999999999999\n", "jobs:rspec retry must be less than or equal to 2"},
		{"retry list", "rspec:\n  script: test\n  retry: [1]\n", "jobs:rspec retry is not a number"},

		{"stage not a string", "rspec:\n  script: test\n  type: 1\n", "jobs:rspec:type config should be a string"},
		{"stage not predefined", "rspec:\n  script: test\n  type: acceptance\n", "rspec job: stage parameter should be build, test, deploy"},
		{"stage not defined", "types: [build, test]\nrspec:\n  script: test\n  type: acceptance\n", "rspec job: stage parameter should be build, test"},
		{"stages not an array", "stages: test\nrspec:\n  script: test\n", "stages config should be an array of strings"},
		{"stages not strings", "stages: [true, test]\nrspec:\n  script: test\n", "stages config should be an array of strings"},

		{"before_script string", "before_script: bundle update\nrspec:\n  script: test\n", "before_script config should be an array of strings"},
		{"job before_script", "rspec:\n  script: test\n  before_script: [10, test]\n", "jobs:rspec:before_script config should be an array of strings"},
		{"after_script string", "after_script: bundle update\nrspec:\n  script: test\n", "after_script config should be an array of strings"},
		{"job after_script", "rspec:\n  script: test\n  after_script: [10, test]\n", "jobs:rspec:after_script config should be an array of strings"},

		{"image", "image: [test]\nrspec:\n  script: test\n", "image config should be a hash or a string"},
		{"job image", "rspec:\n  script: test\n  image: [test]\n", "jobs:rspec:image config should be a hash or a string"},
		{"image unknown key", "image:\n  name: ruby\n  alias: r\nrspec:\n  script: test\n", "image config contains unknown keys: alias"},
		{"image without name", "image:\n  entrypoint: [sh]\nrspec:\n  script: test\n", "image name can't be blank"},
		{"image entrypoint", "image:\n  name: ruby\n  entrypoint: sh\nrspec:\n  script: test\n", "image entrypoint should be an array of strings"},
		{"services not an array", "services: test\nrspec:\n  script: test\n", "services config should be a array"},
		{"services not strings", "services: [10, test]\nrspec:\n  script: test\n", "services:service config should be a hash or a string"},
		{"job services", "rspec:\n  script: test\n  services: test\n", "jobs:rspec:services config should be a array"},
		{"job service", "rspec:\n  script: test\n  services: [10]\n", "jobs:rspec:services:service config should be a hash or a string"},
		{"service alias", "rspec:\n  script: test\n  services:\n    - name: mysql\n      alias: [db]\n", "jobs:rspec:services:service alias should be a string"},

		{"variables not a map", "variables: test\nrspec:\n  script: test\n", "variables config should be a hash of key value pairs"},
		{"variables boolean", "variables:\n  test: false\nrspec:\n  script: test\n", "variables config should be a hash of key value pairs"},
		{"variables psych boolean", "variables:\n  test: yes\nrspec:\n  script: test\n", "variables config should be a hash of key value pairs"},
		{"variables null value", "variables:\n  test:\nrspec:\n  script: test\n", "variables config should be a hash of key value pairs"},
		{"job variables list", "rspec:\n  script: test\n  variables: [VAR1, value1]\n", "jobs:rspec:variables config should be a hash of key value pairs"},

		{"artifacts not a hash", "rspec:\n  script: test\n  artifacts: [a]\n", "jobs:rspec:artifacts config should be a hash"},
		{"artifacts unknown keys", "rspec:\n  script: test\n  artifacts:\n    reports: {}\n", "jobs:rspec:artifacts config contains unknown keys: reports"},
		{"artifacts name", "rspec:\n  script: test\n  artifacts: {name: 1}\n", "jobs:rspec:artifacts name should be a string"},
		{"artifacts when", "rspec:\n  script: test\n  artifacts: {when: 1}\n", "jobs:rspec:artifacts when should be on_success, on_failure or always"},
		{"artifacts when manual", "rspec:\n  script: test\n  artifacts: {when: manual}\n", "jobs:rspec:artifacts when should be on_success, on_failure or always"},
		{"artifacts expire_in integer", "rspec:\n  script: test\n  artifacts: {expire_in: 1}\n", "jobs:rspec:artifacts expire in should be a duration"},
		{"artifacts expire_in elephants", "rspec:\n  script: test\n  artifacts: {expire_in: 7 elephants}\n", "jobs:rspec:artifacts expire in should be a duration"},
		{"artifacts untracked", "rspec:\n  script: test\n  artifacts: {untracked: string}\n", "jobs:rspec:artifacts untracked should be a boolean value"},
		{"artifacts paths", "rspec:\n  script: test\n  artifacts: {paths: string}\n", "jobs:rspec:artifacts paths should be an array of strings"},

		{"cache unknown keys", "cache:\n  untracked: true\n  invalid: key\nrspec:\n  script: rspec\n", "cache config contains unknown keys: invalid"},
		{"cache untracked", "cache: {untracked: string}\nrspec:\n  script: test\n", "cache:untracked config should be a boolean value"},
		{"cache paths", "cache: {paths: string}\nrspec:\n  script: test\n", "cache:paths config should be an array of strings"},
		{"cache key", "cache: {key: 1}\nrspec:\n  script: test\n", "cache:key config should be a string or symbol"},
		{"cache key slash", "cache: {key: a/b}\nrspec:\n  script: test\n", `cache:key config cannot contain the "/" character`},
		{"cache key escaped slash", "cache: {key: a%2Fb}\nrspec:\n  script: test\n", `cache:key config cannot contain the "/" character`},
		{"cache key dots", "cache: {key: ..}\nrspec:\n  script: test\n", `cache:key config cannot be "." or ".."`},
		{"cache policy", "cache: {policy: sometimes}\nrspec:\n  script: test\n", "cache policy should be pull-push, push, or pull"},
		{"job cache key", "rspec:\n  script: test\n  cache: {key: 1}\n", "jobs:rspec:cache:key config should be a string or symbol"},
		{"job cache untracked", "rspec:\n  script: test\n  cache: {untracked: string}\n", "jobs:rspec:cache:untracked config should be a boolean value"},
		{"job cache paths", "rspec:\n  script: test\n  cache: {paths: string}\n", "jobs:rspec:cache:paths config should be an array of strings"},
		{"job cache not a hash", "rspec:\n  script: test\n  cache: [a]\n", "jobs:rspec:cache config should be a hash"},

		{"only integer", "rspec:\n  script: rspec\n  only: 1\n", "jobs:rspec:only has to be either an array of conditions or a hash"},
		{"only string", "rspec:\n  script: rspec\n  only: master\n", "jobs:rspec:only has to be either an array of conditions or a hash"},
		{"only integers", "rspec:\n  script: rspec\n  only: [1, 1]\n", "jobs:rspec:only config should be an array of strings or regexps"},
		{"only invalid regexp", "rspec:\n  script: rspec\n  only: ['/*invalid/']\n", "jobs:rspec:only config should be an array of strings or regexps"},
		{"except integer", "rspec:\n  script: rspec\n  except: 1\n", "jobs:rspec:except has to be either an array of conditions or a hash"},
		{"except invalid regexp", "rspec:\n  script: rspec\n  except: ['/(?<=x)y/']\n", "jobs:rspec:except config should be an array of strings or regexps"},
		{"only empty hash", "rspec:\n  script: rspec\n  only: {}\n", "jobs:rspec:only config can't be blank"},
		{"only unknown keys", "rspec:\n  script: rspec\n  only:\n    refs: [master]\n    kubernetes: active\n", "jobs:rspec:only config contains unknown keys: kubernetes"},
		{"only refs", "rspec:\n  script: rspec\n  only:\n    refs: master\n", "jobs:rspec:only refs should be an array of strings or regexps"},

		{"coverage", "rspec:\n  script: rspec\n  coverage: 'Code coverage'\n", "jobs:rspec:coverage config must be a regular expression"},
		{"coverage invalid", "rspec:\n  script: rspec\n  coverage: '/(unclosed/'\n", "jobs:rspec:coverage config must be a regular expression"},

		{"environment integer", "deploy_to_production:\n  stage: deploy\n  script: test\n  environment: 1\n", "jobs:deploy_to_production:environment config should be a hash or a string"},
		{"environment name", "deploy_to_production:\n  stage: deploy\n  script: test\n  environment: production:staging\n", "jobs:deploy_to_production:environment name can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces"},
		{"environment without name", "deploy:\n  script: test\n  environment:\n    url: https://example.com\n", "jobs:deploy:environment name can't be blank"},
		{"environment action", "deploy:\n  script: test\n  environment:\n    name: review\n    action: restart\n", "jobs:deploy:environment action should be start or stop"},
		{"environment url", "deploy:\n  script: test\n  environment:\n    name: review\n    url: ftp://example.com\n", "jobs:deploy:environment url must be a valid URL"},
		{"environment unknown keys", "deploy:\n  script: test\n  environment:\n    name: review\n    kubernetes: {}\n", "jobs:deploy:environment config contains unknown keys: kubernetes"},
		{"on_stop not defined", "review:\n  stage: deploy\n  script: test\n  environment: {name: review, on_stop: close_review}\n", "review job: on_stop job close_review is not defined"},
		{"on_stop without environment", "review:\n  stage: deploy\n  script: test\n  environment: {name: review, on_stop: close_review}\nclose_review:\n  stage: deploy\n  script: test\n", "review job: on_stop job close_review does not have environment defined"},
		{"on_stop other environment", "review:\n  stage: deploy\n  script: test\n  environment: {name: review, on_stop: close_review}\nclose_review:\n  stage: deploy\n  script: test\n  environment: production\n", "review job: on_stop job close_review have different environment name"},
		{"on_stop without stop", "review:\n  stage: deploy\n  script: test\n  environment: {name: review, on_stop: close_review}\nclose_review:\n  stage: deploy\n  script: test\n  environment: {name: review}\n", "review job: on_stop job close_review needs to have action stop defined"},

		{"undefined dependency", dependencies("[undefined]"), "test1 job: undefined dependency: undefined"},
		{"dependency in same stage", dependencies("[deploy]"), "test1 job: dependency deploy is not defined in prior stages"},
		{"dependency on hidden job", dependencies("[.hidden]"), "test1 job: undefined dependency: .hidden"},

		{"several errors joined", "a:\n  stage: test\nb:\n  script: x\n  when: later\n", "jobs:a script can't be blank, jobs:b when should be on_success, on_failure, always or manual"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := parseError(t, tc.src); got != tc.want {
				t.Errorf("error = %q\n want %q\nfile:\n%s", got, tc.want, tc.src)
			}
		})
	}
}

func longName() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = 'j'
	}
	return string(b)
}

func dependencies(deps string) string {
	return `build1: {stage: build, script: test}
build2: {stage: build, script: test}
.hidden: {stage: build, script: test}
test1: {stage: test, script: test, dependencies: ` + deps + `}
test2: {stage: test, script: test}
deploy: {stage: test, script: test}
`
}

// TestParseErrorsAreCapped keeps yaml_errors readable when every job is
// wrong.
func TestParseErrorsAreCapped(t *testing.T) {
	t.Parallel()
	src := ""
	for i := 0; i < 30; i++ {
		src += "job" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ":\n  stage: test\n"
	}
	got := parseError(t, src)
	const want = ", and 10 more errors"
	if len(got) < len(want) || got[len(got)-len(want):] != want {
		t.Errorf("error = %q, want it to end with %q", got, want)
	}
}
