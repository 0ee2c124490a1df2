--[[
coloc's Slurm submit hook (job_submit/lua): asks `coloc serve` where each
GPU job that names a workload should run, and sets its node, GRES and
admin comment to coloc's answer. Every other job, and every job when coloc
does not answer, goes through unchanged, with a log line for the latter.

Install (slurm.conf):  JobSubmitPlugins=lua
and copy this file to the directory of slurm.conf as job_submit.lua, with
COLOC_URL below pointing at a `coloc serve --slurm-poll 10s` that runs as a
user who may read every job (squeue) on this cluster. It needs curl.

A job names its workload in its comment:
    sbatch --comment "coloc: workload=ResNet-50 (batch size 64)" --gres=gpu:1 job.sh
--]]

local COLOC_URL = "http://127.0.0.1:18480/v1/slurm/place"
local CURL = "/usr/bin/curl"
local TIMEOUT_S = 2 -- the controller waits for this hook: keep it short

-- form_escape percent-encodes everything but unreserved characters, so the
-- body is safe between single quotes on a shell command line.
local function form_escape(s)
	return (string.gsub(tostring(s), "[^%w%-%._~]", function(c)
		return string.format("%%%02X", string.byte(c))
	end))
end

local function field(job_desc, name)
	local ok, v = pcall(function() return job_desc[name] end)
	if ok and v ~= nil then return tostring(v) end
	return ""
end

-- ask posts the job's fields and returns the answer's key=value lines as a
-- table, or nil and why.
local function ask(job_desc)
	local parts = {}
	for _, k in ipairs({ "comment", "partition", "tres_per_node", "tres_per_job" }) do
		table.insert(parts, k .. "=" .. form_escape(field(job_desc, k)))
	end
	local cmd = string.format("%s -sS -m %d -X POST --data-binary '%s' '%s' 2>&1",
		CURL, TIMEOUT_S, table.concat(parts, "&"), COLOC_URL)
	local p = io.popen(cmd)
	if p == nil then return nil, "cannot run " .. CURL end
	local out = p:read("*a") or ""
	p:close()
	local answer = {}
	for line in string.gmatch(out, "[^\n]+") do
		local k, v = string.match(line, "^([%w_]+)=(.*)$")
		if k ~= nil then answer[k] = v end
	end
	if answer.decision == nil then
		return nil, "no answer from " .. COLOC_URL .. ": " .. string.sub(out, 1, 300)
	end
	return answer
end

local function decide(job_desc)
	local comment = field(job_desc, "comment")
	if not string.match(comment, "^%s*coloc:") then
		return -- not a coloc job
	end
	local answer, why = ask(job_desc)
	if answer == nil then
		slurm.log_info("coloc: job left unchanged: %s", why)
		return
	end
	if answer.decision ~= "place" then
		slurm.log_info("coloc: job left unchanged: %s", answer.reason or "no reason given")
		return
	end
	job_desc.req_nodes = answer.node
	job_desc.tres_per_node = answer.tres_per_node
	if field(job_desc, "tres_per_job") ~= "" then
		job_desc.tres_per_job = ""
	end
	if answer.partition ~= nil and field(job_desc, "partition") == "" then
		job_desc.partition = answer.partition
	end
	job_desc.admin_comment = answer.admin_comment
	slurm.log_info("coloc: job to %s with %s: %s", answer.node, answer.tres_per_node, answer.reason or "")
end

function slurm_job_submit(job_desc, part_list, submit_uid)
	local ok, err = pcall(decide, job_desc)
	if not ok then
		slurm.log_info("coloc: job left unchanged: the hook failed: %s", tostring(err))
	end
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end
