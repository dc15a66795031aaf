package sim

import (
	"errors"
	"fmt"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/workload"
)

// A command a zoned drive refuses with a zone status (an *ftl.ZoneError:
// a write off the write pointer, past the zone's capacity, over the open
// or active zone limits) fails the I/O, as the drive's error status does
// for fio: the job ends with the error Linux reports for the status
// (ftl.ZoneStatus.Errno), and fio's lines for it are in the result
// (Result.ZoneError). The other jobs go on.

// strerror is glibc's text for the errnos zone statuses map to.
func strerror(errno int) string {
	switch errno {
	case 5:
		return "Input/output error"
	case 75:
		return "Value too large for defined data type"
	case 95:
		return "Operation not supported"
	case 109:
		return "Too many references: cannot splice"
	}
	return fmt.Sprintf("errno %d", errno)
}

// ddirName is fio's io_ddir_name of a request.
func ddirName(op blockio.Op) string {
	switch op {
	case blockio.Read:
		return "read"
	case blockio.Write, blockio.ZoneAppend:
		return "write"
	case blockio.Trim, blockio.ZoneManage:
		return "trim"
	case blockio.Flush:
		return "sync"
	}
	return op.String()
}

// zoneRefused reports a zone status err for request it of stream s: the
// first such failure is kept, in fio's words, and the job ends.
func (s *stream) zoneRefused(err error, it *workload.Item, now int64) bool {
	var ze *ftl.ZoneError
	if !errors.As(err, &ze) {
		return false
	}
	if s.m.zoneErr == "" {
		errno := ze.Status.Errno()
		msg := fmt.Sprintf("fio: io_u error: %s: %s offset=%d, buflen=%d (the drive: %v)", strerror(errno), ddirName(it.Op), it.Offset, it.Length, ze)
		if ze.Status == ftl.TooManyActiveZones {
			msg += "; Exceeded max_active_zones limit. Check conditions of zones out of I/O ranges."
		}
		s.m.zoneErr, s.m.zoneErrno = msg, errno
	}
	s.stopAt = min(s.stopAt, now) // the error ends the job
	return true
}
