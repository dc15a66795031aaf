package workload

// The files of a job file's jobs, as fio names them: a job that names a
// device (filename=/dev/…) reads and writes the drive itself; a job that
// names files (filename=NAME, directory, filename_format, nrfiles,
// filesize) gets, for each distinct file, a region of the drive of its
// own, shared by every job naming the same file — as jobs on one file
// system share a file and jobs with files of their own do not.

import (
	"fmt"
	"strconv"
	"strings"
)

// FileSet is how a job names its files (fio's filename, directory,
// filename_format): set by a job file's options, laid out on the drive by
// LayOutFiles.
type FileSet struct {
	// Names are the files filename= lists (fio's ':'-separated list),
	// empty when the job names none.
	Names []string
	// Directory is fio's directory: generated names go in it (the first
	// of ':'-separated directories for named files; clones deal them).
	Directory string
	// Format is fio's filename_format ($jobname, $jobnum, $filenum,
	// $clientuid); "" for fio's default $jobname.$jobnum.$filenum.
	Format string
	// dirSet and filesSet: directory, or nrfiles or filesize, were given
	// (even empty, as ${FIO_DIR} unset gives): the job is on files.
	dirSet, filesSet bool
	// section is the job's section name ($jobname; clones share it).
	section string
	// Region is where on the drive the job's files are, once laid out:
	// Base and Len in bytes (Len 0: the whole drive).
	Region Region
	// Shared names the files the job shares with another writing job
	// (fio warns of them when the job verifies), "" when none.
	Shared string
	// Namespace is the namespace the job runs on (from 1), once laid
	// out on a drive of several; 0 on a drive of one.
	Namespace int
}

// Region is a byte range of the drive a job's files take.
type Region struct {
	Base, Len int64
	// Of is what percentages of the job's sizes are of: its namespace's
	// bytes on a drive of several (0: the drive's capacity).
	Of int64
	// File is the job's file names, as laid out ("" for the drive).
	File string
}

// namespaceOf returns the namespace an NVMe device name addresses
// (/dev/nvme0n2, /dev/ng0n2: 2), or 0 for another device name.
func namespaceOf(name string) int {
	base := name[strings.LastIndexByte(name, '/')+1:]
	if !strings.HasPrefix(base, "nvme") && !strings.HasPrefix(base, "ng") {
		return 0
	}
	i := strings.LastIndexByte(base, 'n')
	if i <= 2 {
		return 0
	}
	n, err := strconv.Atoi(base[i+1:])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// isDevice reports whether fio would open name as a block device: the
// simulated drive, not a file on it.
func isDevice(name string) bool {
	return strings.HasPrefix(name, "/dev/") || strings.HasPrefix(name, `\\.\`)
}

// fileNames returns the names of the job's files, fio's way, or nil when
// the job runs on the drive itself (it names a device, or no file and no
// directory, filename_format, nrfiles or filesize: ftlsim's simulated
// drive, where fio would create jobname.N.0 in the current directory).
func (j *Job) fileNames() []string {
	f := &j.FileSet
	if len(f.Names) > 0 {
		if isDevice(f.Names[0]) {
			return nil
		}
		dir, _, _ := strings.Cut(f.Directory, ":")
		out := make([]string, len(f.Names))
		for i, n := range f.Names {
			out[i] = joinDir(dir, n)
		}
		return out
	}
	if !f.dirSet && f.Format == "" && !f.filesSet {
		return nil
	}
	dirs := strings.Split(f.Directory, ":")
	dir := dirs[j.Clone%len(dirs)]
	format := f.Format
	if format == "" {
		format = "$jobname.$jobnum.$filenum"
	}
	section := f.section
	if section == "" {
		section = j.Name
	}
	n := max(j.Files, 1)
	out := make([]string, n)
	for i := range out {
		r := strings.NewReplacer("$jobname", section, "$jobnum", strconv.Itoa(j.Clone), "$filenum", strconv.Itoa(i), "$clientuid", "0")
		out[i] = joinDir(dir, r.Replace(format))
	}
	return out
}

func joinDir(dir, name string) string {
	if dir == "" || strings.HasPrefix(name, "/") {
		return name
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// LayOutFiles gives each file the jobs of jf name a region of the drive of
// capacity bytes (see LayOutNamespaces for a drive of several namespaces), laid end to end in the order the files first appear:
// every job naming the same files shares their region; a job on the drive
// keeps the whole drive. A file takes the largest extent (offset + size)
// a job using it asks for; files no job gives a size share equally the
// space the others leave (fio would need a size for a file that does not
// exist). Files that do not fit in the drive are an error, as fio's
// layout fails with ENOSPC. Call it before resolving the jobs.
func (jf *JobFile) LayOutFiles(capacity int64) error {
	return jf.LayOutNamespaces(capacity, nil)
}

// LayOutNamespaces is LayOutFiles on a drive of the namespaces ns (their
// byte ranges, in order of their identifiers from 1; nil or one: the
// drive has one). With several, a job whose filename names an NVMe
// namespace (/dev/nvme0n2, /dev/ng0n2) runs on it, and every other job —
// on another device name, on files, or naming none — on namespace 1, its
// files laid out there; a namespace the drive does not have is an error.
// On a drive of one namespace every device name is the drive.
func (jf *JobFile) LayOutNamespaces(capacity int64, ns []Region) error {
	if len(ns) > 1 {
		for _, fj := range jf.Jobs {
			j := fj.Job
			n := 1
			if names := j.FileSet.Names; len(names) > 0 && isDevice(names[0]) {
				n = max(namespaceOf(names[0]), 1)
			}
			if n > len(ns) {
				return fmt.Errorf("%w: [%s]: filename=%s: the drive has namespaces 1..%d", ErrOption, j.Name, j.FileSet.Names[0], len(ns))
			}
			j.FileSet.Namespace = n
		}
	}
	if len(ns) <= 1 {
		return jf.layOut(capacity)
	}
	if err := jf.layOut(ns[0].Len); err != nil {
		return err
	}
	for _, fj := range jf.Jobs {
		j := fj.Job
		r := ns[j.FileSet.Namespace-1]
		if j.FileSet.Region.Len == 0 {
			j.FileSet.Region = Region{Base: r.Base, Len: r.Len, Of: r.Len, File: r.File}
			continue
		}
		j.FileSet.Region.Base += r.Base
		j.FileSet.Region.Of = r.Len
	}
	return nil
}

// layOut lays out the files of jf on capacity bytes from 0.
func (jf *JobFile) layOut(capacity int64) error {
	var files []*layoutFile
	index := map[string]*layoutFile{}
	owner := map[string]*layoutFile{} // each name, to the file set holding it
	group := map[*Job]int{}
	for _, fj := range jf.Jobs {
		j := fj.Job
		group[j] = fj.Group
		names := j.fileNames()
		j.FileSet.Region, j.FileSet.Shared = Region{}, ""
		if names == nil {
			continue
		}
		key := strings.Join(names, ":")
		f := index[key]
		if f == nil {
			for _, n := range names {
				if o := owner[n]; o != nil {
					return fmt.Errorf("%w: [%s]: file %s is also one of the files %s of another job: ftlsim lays a job's files end to end, so jobs must share all their files or none",
						ErrOption, j.Name, n, o.key)
				}
			}
			f = &layoutFile{key: key}
			index[key] = f
			files = append(files, f)
			for _, n := range names {
				owner[n] = f
			}
		}
		f.jobs = append(f.jobs, j)
		if need, ok := j.extent(capacity); ok {
			f.need = max(f.need, need)
		}
	}
	used, unsized := int64(0), 0
	for _, f := range files {
		used += f.need
		if f.need == 0 {
			unsized++
		}
	}
	if used > capacity {
		return fmt.Errorf("%w: the files of the jobs take %d bytes, more than the %d-byte drive (%d files, the first %s); fio would fail laying them out (ENOSPC): give a larger --capacity or smaller sizes",
			ErrOption, used, capacity, len(files), files[0].key)
	}
	share := int64(0)
	if unsized > 0 {
		share = (capacity - used) / int64(unsized) / 4096 * 4096
		if share == 0 {
			return fmt.Errorf("%w: no room left on the %d-byte drive for the %d files no job gives a size (the first %s)", ErrOption, capacity, unsized, firstUnsized(files))
		}
	}
	base := int64(0)
	for _, f := range files {
		n := f.need
		if n == 0 {
			n = share
		}
		n = (n + 4095) / 4096 * 4096 // files start on 4 KiB boundaries, as file systems allocate
		n = min(n, capacity-base)
		writers := map[int][]string{} // by group: the jobs that change the file's data at once
		for _, j := range f.jobs {
			j.FileSet.Region = Region{Base: base, Len: n, File: f.key}
			if j.writes() && !j.KeepData {
				writers[group[j]] = append(writers[group[j]], j.Name)
			}
		}
		for _, j := range f.jobs {
			if w := writers[group[j]]; len(w) > 1 {
				j.FileSet.Shared = strings.Join(w, ", ")
			}
		}
		base += n
	}
	return nil
}

// layoutFile is a set of files one or more jobs name, as LayOutFiles
// places it: the bytes its jobs reach and the jobs.
type layoutFile struct {
	key  string
	need int64
	jobs []*Job
}

// firstUnsized names the first file set no job gives a size.
func firstUnsized(files []*layoutFile) string {
	for _, f := range files {
		if f.need == 0 {
			return f.key
		}
	}
	return ""
}

// extent returns the bytes of its files the job reaches on a drive of
// capacity bytes (offset + size, or nrfiles × filesize), and whether it
// gives a size at all.
func (j *Job) extent(capacity int64) (int64, bool) {
	if !j.size.set && !j.fileSize.set && !j.ioSize.set {
		return 0, false
	}
	c := *j
	c.FileSet.Region = Region{}
	minBS, err := c.smallestBlock()
	if err != nil {
		return 0, false
	}
	if !c.size.set && !c.fileSize.set {
		// io_size alone: fio makes the file that big.
		c.size = c.ioSize
	}
	if c.resolveRange(capacity, minBS) != nil {
		return 0, false
	}
	return c.Offset + c.Size, true
}

// writes reports whether the job writes (or trims) data.
func (j *Job) writes() bool {
	return j.Pattern != SeqRead && j.Pattern != RandRead
}

// setEngine records what ioengine=v changes in the simulated I/O: only
// e4defrag's, whose writes move extents and leave the data as it was.
func (j *Job) setEngine(v string) {
	j.KeepData = strings.EqualFold(strings.TrimSpace(v), "e4defrag")
}

// fileNotes are what the job's files make it do differently from what
// its options alone say, for the user to read.
func (j *Job) fileNotes() {
	if j.KeepData && j.writes() {
		j.Notes = append(j.Notes, "ioengine=e4defrag: the job's writes move the file's extents, as the engine does: the blocks are rewritten with the data they hold")
	}
	if j.Verify && j.writes() && j.FileSet.Shared != "" {
		j.Notes = append(j.Notes, fmt.Sprintf("jobs %s write the same file %s: as fio warns, multiple writers may overwrite blocks that belong to other jobs, and verification can fail",
			j.FileSet.Shared, j.FileSet.Region.File))
	}
}
