package runners

import "go.uber.org/zap"

func zapErr(err error) zap.Field        { return zap.Error(err) }
func zapJob(id int64) zap.Field         { return zap.Int64("job_id", id) }
func zapRunner(id int64) zap.Field      { return zap.Int64("runner_id", id) }
func zapKey(key string) zap.Field       { return zap.String("key", key) }
func zapStatus(status string) zap.Field { return zap.String("previous_status", status) }
