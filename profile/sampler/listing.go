package sampler

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/coloc-dev/coloc/datasets"
)

// ListingVersion is the version of the layout of Listing, the JSON
// document of `coloc devices --json`.
const ListingVersion = 1

// Listing is what a Detection found, as `coloc devices --json` prints it:
// the GPUs and their counters, the host counters, and the warnings.
type Listing struct {
	Version int `json:"version"`
	GPU     struct {
		Available bool           `json:"available"`
		Reason    string         `json:"reason,omitempty"`
		System    System         `json:"system"`
		Devices   []ListedDevice `json:"devices"`
	} `json:"gpu"`
	Host struct {
		Available bool            `json:"available"`
		Counters  []ListedCounter `json:"counters"`
	} `json:"host"`
	Warnings []string `json:"warnings"`
}

// ListedDevice is one GPU of a Listing, with the counters it offers.
type ListedDevice struct {
	Device
	Counters []ListedCounter `json:"counters"`
}

// ListedCounter is one counter of a Listing, with its documentation.
type ListedCounter struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	Doc  string `json:"doc"`
}

func listCounters(cs []datasets.Counter) []ListedCounter {
	out := make([]ListedCounter, len(cs))
	for i, c := range cs {
		out[i] = ListedCounter{c.Name, c.Unit, CounterDoc(c.Name)}
	}
	return out
}

// Listing returns what d found as a Listing.
func (d *Detection) Listing() Listing {
	var doc Listing
	doc.Version = ListingVersion
	doc.GPU.Available = d.GPU != nil
	doc.GPU.Reason = d.GPUReason
	doc.GPU.System = d.System
	doc.GPU.Devices = []ListedDevice{}
	for _, dev := range d.Devices {
		doc.GPU.Devices = append(doc.GPU.Devices, ListedDevice{Device: dev, Counters: listCounters(dev.Counters)})
	}
	doc.Host.Available = d.Host != nil
	doc.Host.Counters = []ListedCounter{}
	if d.Host != nil {
		doc.Host.Counters = listCounters(d.Host.Counters())
	}
	doc.Warnings = append([]string{}, d.Warnings...)
	return doc
}

// WriteJSON writes d's Listing as indented JSON.
func (d *Detection) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d.Listing())
}

// WriteText writes what d found for a reader: the GPUs in a table, each
// GPU counter with the devices that offer it, what a device does not
// support, the host counters, and the warnings.
func (d *Detection) WriteText(w io.Writer) error {
	if d.GPU == nil {
		fmt.Fprintf(w, "GPUs: none. %s.\nGPU counters will not be recorded; host counters will.\n", d.GPUReason)
	} else {
		s := d.System
		fmt.Fprintf(w, "GPUs: %d (driver %s, CUDA %s, NVML %s)\n", len(d.Devices), s.Driver, s.CUDADriver, s.NVML)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  INDEX\tTYPE\tNAME\tMEMORY\tARCH\tCC\tGPM\tMODE\tPOWER CAP\tUUID")
		for _, dev := range d.Devices {
			gpm := "no"
			if dev.GPM {
				gpm = "yes"
			}
			mode, cap := dev.ComputeMode, "?"
			if mode == "" {
				mode = "?"
			}
			if dev.PowerLimitW > 0 {
				cap = fmt.Sprintf("%.0f W", dev.PowerLimitW)
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%.1f GiB\t%s\t%s\t%s\t%s\t%s\t%s\n", dev.Index, dev.Type, dev.Name,
				float64(dev.MemoryTotal)/(1<<30), dev.Architecture, dev.ComputeCapability, gpm, mode, cap, dev.UUID)
		}
		tw.Flush()
		fmt.Fprintln(w, "\nGPU counters (and the devices that offer them):")
		d.writeGPUCounters(w)
		for _, dev := range d.Devices {
			if len(dev.Unsupported) > 0 {
				fmt.Fprintf(w, "Device %d does not support: %s\n", dev.Index, strings.Join(dev.Unsupported, ", "))
			}
		}
	}
	fmt.Fprintln(w)
	if d.Host == nil {
		fmt.Fprintln(w, "Host counters: none (/proc cannot be read).")
	} else {
		fmt.Fprintln(w, "Host counters (/proc), per workload, always recorded:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range d.Host.Counters() {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Name, c.Unit, CounterDoc(c.Name))
		}
		tw.Flush()
	}
	if len(d.Warnings) > 0 && d.GPU != nil {
		fmt.Fprintln(w)
		for _, msg := range d.Warnings {
			fmt.Fprintln(w, "warning:", msg)
		}
	}
	return nil
}

// writeGPUCounters lists each counter of the GPU sampler with the devices
// that offer it ("all" when every device does).
func (d *Detection) writeGPUCounters(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range d.GPU.Counters() {
		var on []string
		for _, dev := range d.Devices {
			for _, dc := range dev.Counters {
				if dc.Name == c.Name {
					on = append(on, fmt.Sprint(dev.Index))
					break
				}
			}
		}
		devs := strings.Join(on, ",")
		if len(on) == len(d.Devices) {
			devs = "all"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Name, c.Unit, devs, CounterDoc(c.Name))
	}
	tw.Flush()
}
