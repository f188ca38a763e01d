// JsonDialect: what every slurmrestd codec decodes the same way (internal to src/slurm/).
//
// All four REST versions wrap their answers in the same envelope (meta, errors, warnings) and
// answer submits, job lists, partitions, cancels, pings and diag with the same skeletons; they
// differ in how one job record, one cancel refusal or one ping entry reads. This base class
// holds the skeletons once; a codec overrides only the per-record readers. Stateless, so
// safe to share between threads. Boost.JSON appears here because only codec .cc files
// include this header.
#pragma once

#include <boost/json.hpp>
#include <vector>

#include "slurm/dialect.h"

namespace tpslurm::slurm {

class JsonDialect : public Dialect {
 public:
  Result<ReplyBase> decode_base(std::string_view body) const override;
  Result<SubmitReply> decode_submit(std::string_view body) const override;
  Result<JobsReply> decode_jobs(std::string_view body) const override;
  Result<JobsReply> decode_db_jobs(std::string_view body) const override;
  Result<CancelReply> decode_cancel(std::string_view body) const override;
  Result<PingReply> decode_ping(std::string_view body) const override;
  Result<PartitionsReply> decode_partitions(std::string_view body) const override;
  Result<NodesReply> decode_nodes(std::string_view body) const override;
  Result<AssociationsReply> decode_associations(std::string_view body) const override;
  Result<JobsStateReply> decode_jobs_state(std::string_view body) const override;
  Result<DiagReply> decode_diag(std::string_view body) const override;
  Result<ConfReply> decode_conf(std::string_view body) const override;
  std::unique_ptr<JobsDecoder> jobs_decoder(RecordSource source) const override;

 protected:
  // One slurmctld job record (`jobs[]` of GET /jobs and /job/{id}).
  virtual model::JobSnapshot read_job(const boost::json::object& record) const = 0;
  // What a slurmdbd record says the job was given and how long it ran.
  static model::Allocation read_allocation(const boost::json::object& record);
  // One slurmdbd job record (`jobs[]` of GET /slurmdb/vX/jobs).
  virtual model::JobSnapshot read_db_job(const boost::json::object& record) const = 0;
  // The slurmdbd fields every version spells alike: job id, het ids, name, comment, working
  // directory, partition, nodes, the state's reason and the times. The state itself, the
  // SLUID and the exit are the version's to read.
  static model::JobSnapshot read_db_common(const boost::json::object& record);

 private:
  class RecordsDecoder;
  // `{"jobs": [...]}` with the envelope, each record read by the source's reader.
  Result<JobsReply> decode_records(std::string_view body, RecordSource source) const;
  // The refusals of a cancel answer (v0.0.4x `status[].error`, v0.0.38 `errors[]`); corrupt
  // when the answer lacks what this version always sends.
  virtual Result<std::vector<SlurmMessage>> read_refusals(const boost::json::object& body,
                                                          const ReplyBase& base) const = 0;
  // Reads one `pings[]` entry into `reply`; true when it was the primary controller's.
  virtual bool read_ping(const boost::json::object& entry, PingReply& reply) const = 0;
};

// NO_VAL (0xfffffffe): the task id slurmdbd keeps for an array's meta record; not a task.
inline constexpr std::int64_t kNoTask = 4294967294;

// What the cancel refusals amount to: none = signalled; all 2017 = not_found; all 2021 =
// already_done; all 2020 = not_running; anything else = refused.
CancelStatus cancel_status(const std::vector<SlurmMessage>& refusals);

}  // namespace tpslurm::slurm
