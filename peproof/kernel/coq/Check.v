(** * Check: what the runner's generated proofs share (peproof/kernel/coq/run.py)

    Logical path [PEProof.Check], compiled with the library (lib/) into the runner's cache.

    - [peproof_not_proved]: the marker a generated proof falls back to when its script does not
      close the goal ([first [solve [script] | exact (peproof_not_proved _)]]), so that one
      failing claim does not stop the others compiled in the same [coqc] run.  It is an axiom
      ON PURPOSE: [Print Assumptions] then names it, and the runner's allow-list refuses every
      lemma that uses it ("not checked in Coq").  Nothing else may use it.
    - [izr_div_exact]: the division a translated integer limit such as [d / 2 - 1] uses is
      exact when the divisor divides.
    - Tactics: [pe_zfacts] (the real-valued facts of the integer hypotheses), [pe_side]
      (definedness obligations and other side goals), [pe_pyth_of t] (the Pythagorean fact of
      [t] in the form [ring [..]] rewrites with).
*)

From Coq Require Import ZArith Reals Lia Lra Nsatz.
From PEProof Require Import Defs.
Open Scope R_scope.

Axiom peproof_not_proved : forall P : Prop, P.

Lemma izr_div_exact : forall a c : Z, (c <> 0)%Z -> (a mod c = 0)%Z ->
  IZR (a / c) = IZR a / IZR c.
Proof.
  intros a c Hc Hm.
  assert (Hc' : IZR c <> 0) by (apply not_0_IZR; exact Hc).
  rewrite (Z_div_exact_full_2 a c Hc Hm) at 2.
  rewrite mult_IZR; field; exact Hc'.
Qed.

Lemma even_mod2 : forall d : Z, Z.Even d -> (d mod 2 = 0)%Z.
Proof. intros d [m ->]; rewrite Z.mul_comm, Z_mod_mult; reflexivity. Qed.

Lemma sin_arg : forall a b : R, a = b -> sin a = sin b.
Proof. intros a b ->; reflexivity. Qed.
Lemma cos_arg : forall a b : R, a = b -> cos a = cos b.
Proof. intros a b ->; reflexivity. Qed.

(** Integer multiples of [pi]: [sin (PI * n) = 0], [sin (2 PI n) = 0], [cos (2 PI n) = 1]. *)
Lemma sin_piZ : forall n : Z, sin (PI * IZR n) = 0.
Proof.
  intro n; apply sin_eq_0_1; exists n; ring.
Qed.
Lemma cos_2piZ : forall n : Z, cos (2 * PI * IZR n) = 1.
Proof.
  intro n; replace (2 * PI * IZR n) with (2 * (PI * IZR n)) by ring.
  rewrite cos_2a_sin, sin_piZ; ring.
Qed.
Lemma sin_2piZ : forall n : Z, sin (2 * PI * IZR n) = 0.
Proof.
  intro n; replace (2 * PI * IZR n) with (PI * IZR (2 * n)) by (rewrite mult_IZR; ring).
  apply sin_piZ.
Qed.

(** Periods: two angles that differ by [2 PI n] (or add up to it) for an integer [n]; the
    script names [n] (computed from the statement), the kernel checks the angles' equality. *)
Lemma sin_period : forall a b (n : Z), a = b + 2 * PI * IZR n -> sin a = sin b.
Proof. intros a b n ->; rewrite sin_plus, cos_2piZ, sin_2piZ; ring. Qed.
Lemma cos_period : forall a b (n : Z), a = b + 2 * PI * IZR n -> cos a = cos b.
Proof. intros a b n ->; rewrite cos_plus, cos_2piZ, sin_2piZ; ring. Qed.
Lemma sin_period_neg : forall a b (n : Z), a = - b + 2 * PI * IZR n -> sin a = - sin b.
Proof. intros a b n ->; rewrite sin_plus, cos_2piZ, sin_2piZ, sin_neg; ring. Qed.
Lemma cos_period_neg : forall a b (n : Z), a = - b + 2 * PI * IZR n -> cos a = cos b.
Proof. intros a b n ->; rewrite cos_plus, cos_2piZ, sin_2piZ, cos_neg; ring. Qed.
Lemma sin_piZ_at : forall a (n : Z), a = PI * IZR n -> sin a = 0.
Proof. intros a n ->; apply sin_piZ. Qed.
Lemma cos_2piZ_at : forall a (n : Z), a = 2 * PI * IZR n -> cos a = 1.
Proof. intros a n ->; apply cos_2piZ. Qed.

(** [p ^ i] for a positive literal [p] and an integer [i >= 0] is an integer (NeRF's
    frequencies [2 ^ i pi]). *)
Lemma rpowZ_IZR : forall (p : positive) (i : Z), (0 <= i)%Z ->
  rpow (IZR (Zpos p)) (IZR i) = IZR (Zpos p ^ i).
Proof.
  intros p i Hi; destruct (Z_of_nat_complete i Hi) as [n ->].
  rewrite <- INR_IZR_INZ, rpow_pow by (apply IZR_lt; reflexivity).
  apply pow_IZR.
Qed.

Lemma pyth_sq : forall t : R, sin t * sin t = 1 - cos t * cos t.
Proof. intro t; pose proof (sin2_cos2 t) as H; unfold Rsqr in H; lra. Qed.

Ltac pe_split := repeat match goal with |- _ /\ _ => split end.

(** The real facts of the integer hypotheses in context (each once); a strict inequality
    between integers is also read as [a + 1 <= x] when [a + 1] computes to a literal, the bound
    [interval] needs to prove [0 < x] (for [i < j] of two variables only [IZR i < IZR j]: the
    computed [i + 1] is a [match] that [lia] cannot read, which used to make the whole fact
    fail). *)
Ltac pe_zfacts :=
  repeat match goal with
  | H : (?a < ?x)%Z |- _ =>
      lazymatch goal with _ : IZR a < IZR x |- _ => fail | _ =>
        assert (IZR a < IZR x) by (apply IZR_lt; exact H);
        try (let a1 := eval compute in (a + 1)%Z in
             lazymatch a1 with Zpos _ => idtac | Zneg _ => idtac | Z0 => idtac end;
             lazymatch goal with _ : IZR a1 <= IZR x |- _ => idtac | _ =>
               assert (IZR a1 <= IZR x) by (apply IZR_le; lia) end) end
  | H : (?x < ?a)%Z |- _ =>
      lazymatch goal with _ : IZR x < IZR a |- _ => fail | _ =>
        assert (IZR x < IZR a) by (apply IZR_lt; exact H);
        try (let a1 := eval compute in (a - 1)%Z in
             lazymatch a1 with Zpos _ => idtac | Zneg _ => idtac | Z0 => idtac end;
             lazymatch goal with _ : IZR x <= IZR a1 |- _ => idtac | _ =>
               assert (IZR x <= IZR a1) by (apply IZR_le; lia) end) end
  | H : (?a <= ?x)%Z |- _ =>
      lazymatch goal with _ : IZR a <= IZR x |- _ => fail | _ =>
        assert (IZR a <= IZR x) by (apply IZR_le; exact H) end
  | H : Z.Even ?x |- _ =>
      lazymatch goal with _ : (x mod 2 = 0)%Z |- _ => fail | _ =>
        assert ((x mod 2 = 0)%Z) by (apply even_mod2; exact H) end
  end.

(** Integer obligations [IZR (a / c) = IZR a / c] and the like. *)
Ltac pe_izr_push :=
  repeat first [ rewrite plus_IZR | rewrite minus_IZR | rewrite mult_IZR | rewrite opp_IZR ].

Ltac pe_zdiv :=
  repeat match goal with
  | |- context [IZR (?a / ?c)] =>
      rewrite (izr_div_exact a c) by (first [ assumption | lia ])
  end.


(** [zsum] with integer-literal limits unfolded into its terms, the reals left alone. *)
Ltac pe_zsum_eval :=
  repeat match goal with
  | |- context [zsum ?a ?b ?f] =>
      let t := eval cbv -[IZR Rplus Rmult Ropp Rinv Rdiv Rminus rpow Rpower sin cos tan exp ln
                          sqrt PI Rabs Rmax Rmin powerRZ pow atan Int_part] in (zsum a b f) in
      change (zsum a b f) with t
  end.

(** [0 < exp t] for every [exp t] of the goal (each once). *)
Ltac pe_exp_facts :=
  repeat match goal with
  | |- context [exp ?t] =>
      lazymatch goal with _ : 0 < exp t |- _ => fail | _ => pose proof (exp_pos t) end
  end.

(** Side goals: definedness obligations, sign conditions, integer facts. *)
Ltac pe_side :=
  pe_zfacts;
  first [ solve [lra]
        | solve [lia]
        | solve [apply IZR_neq; lia]
        | solve [apply IZR_lt; lia]
        | solve [apply IZR_le; lia]
        | solve [pe_izr_push; pe_zdiv; pe_izr_push; field]
        | solve [pe_izr_push; pe_zdiv; pe_izr_push; lra]
        | solve [nra]
        | solve [apply Rgt_not_eq; lra]
        | solve [apply Rlt_not_eq; lra]
        (* an integer relation from real hypotheses ([j <= d/2 - 1] gives [2 j + 1 <= d - 1]) *)
        | solve [apply le_IZR; pe_izr_push; lra]
        | solve [apply lt_IZR; pe_izr_push; lra]
        (* a sum of exponentials is not zero (softmax's denominator) *)
        | solve [pe_exp_facts; apply Rgt_not_eq; lra] ].

(** Equal arguments of sin/cos (the translator's [replace] steps); a quotient's denominator
    nonzero by [pe_side] ([2 PI n (N - k) / N = 2 PI n - 2 PI k n / N] for an integer [N > 0]). *)
Ltac pe_eq := first [ solve [ring] | solve [unfold Rdiv; ring] | solve [field]
                    | solve [field; pe_side] ].

(** Bounds of every sin/cos in the goal, for [lra]/[nra]. *)
Ltac pe_bounds :=
  repeat match goal with
  | |- context [sin ?t] =>
      lazymatch goal with _ : -1 <= sin t <= 1 |- _ => fail | _ => pose proof (SIN_bound t) end
  | |- context [cos ?t] =>
      lazymatch goal with _ : -1 <= cos t <= 1 |- _ => fail | _ => pose proof (COS_bound t) end
  end.

(** Every [Rabs] of the goal and the hypotheses split into its two cases. *)
Ltac pe_abs :=
  unfold Rabs in *;
  repeat match goal with
  | |- context [Rcase_abs ?x] => destruct (Rcase_abs x)
  | H : context [Rcase_abs ?x] |- _ => destruct (Rcase_abs x)
  end.


(** Closed integer expressions under [IZR] computed ([IZR (4 / 2 - 1)] becomes [IZR 1]). *)
Ltac pe_zcomp :=
  repeat match goal with
  | |- context [IZR ?z] =>
      let z' := eval vm_compute in z in
      assert_fails (constr_eq z z');
      lazymatch z' with Zpos _ => idtac | Zneg _ => idtac | Z0 => idtac end;
      change z with z'
  end.

(** Premises of a goal specialised at a point: domains (integer facts, evenness, signs) and the
    definedness obligations of the conclusions (nonzero denominators, positive bases). *)
Ltac pe_point :=
  first [ solve [lia] | solve [apply Z.even_spec; reflexivity] | solve [lra]
        | solve [pe_side]
        | solve [pe_exp_facts; first [ lra | (intro; lra) | nra ]]
        | solve [assert (0 < PI) by exact PI_RGT_0; first [ lra | (intro; lra) | nra ]]
        | solve [pe_zcomp; first [ lra | (intro; lra) ]] ].

(** [H : A1 -> ... -> An -> B] with each [Ai] closed: [H : B]. *)
Ltac pe_feed H :=
  repeat match type of H with
  | ?A -> _ => let a := fresh "a" in assert (a : A) by pe_point; specialize (H a)
  end.

(** *** Powers of one base with variable exponents ([encoding]'s frequencies for every [d])

    [pe_rpow]: quotients and products of powers of one base merged ([rpow_opp], [rpow_plus]),
    then equal exponents ([f_equal]), or monotonicity for a base above 1 ([rpow_lt]), through
    [rpow b 0], [rpow b 1] or [rpow b (-1)] when one side is a constant, a common positive factor
    taken off first.  [pe_expo]: the exponents' relation, affine forms over [/ IZR n] with [n]'s
    sign known from the hypotheses, by [lra]/[nra] (with [0 < / IZR n] and [IZR n * / IZR n = 1])
    or [field]. *)

Lemma rpow_le_mono : forall b e1 e2, 1 < b -> e1 <= e2 -> rpow b e1 <= rpow b e2.
Proof. intros b e1 e2 Hb [H|H]; [left; apply rpow_lt; assumption | subst; right; reflexivity]. Qed.

Ltac pe_denoms :=
  repeat match goal with
  | |- context [/ IZR ?n] =>
      lazymatch goal with _ : 0 < / IZR n |- _ => fail | _ =>
        assert (0 < / IZR n) by (apply Rinv_0_lt_compat; pe_side);
        assert (IZR n * / IZR n = 1) by (field; pe_side) end
  end.
Ltac pe_expo := unfold Rdiv; pe_denoms; first [ solve [lra] | solve [nra] | solve [field; pe_side] ].
Ltac pe_pos := first [ lra | solve [pose proof PI_RGT_0; lra] | solve [pose proof PI_RGT_0; nra] ].
Ltac pe_rpow_mono :=
  lazymatch goal with
  | |- rpow ?b _ < rpow ?b _ => apply rpow_lt; [lra | pe_expo]
  | |- rpow ?b _ <= rpow ?b _ => apply rpow_le_mono; [lra | pe_expo]
  end.
(** a closed comparison with [rpow b 0], [rpow b 1], [rpow b (-1)] *)
Ltac pe_rconst :=
  rewrite ?rpow_0; rewrite ?rpow_opp; rewrite ?rpow_1 by lra; lra.
Ltac pe_via b :=
  first [ solve [apply Rle_lt_trans with (rpow b 0); [pe_rconst | pe_rpow_mono]]
        | solve [apply Rle_lt_trans with (rpow b 1); [pe_rconst | pe_rpow_mono]]
        | solve [apply Rle_lt_trans with (rpow b (Ropp 1)); [pe_rconst | pe_rpow_mono]]
        | solve [apply Rlt_le_trans with (rpow b 0); [pe_rpow_mono | pe_rconst]]
        | solve [apply Rlt_le_trans with (rpow b 1); [pe_rpow_mono | pe_rconst]]
        | solve [apply Rlt_le_trans with (rpow b (Ropp 1)); [pe_rpow_mono | pe_rconst]]
        | solve [apply Rle_trans with (rpow b 0); [pe_rconst | pe_rpow_mono]]
        | solve [apply Rle_trans with (rpow b 1); [pe_rconst | pe_rpow_mono]]
        | solve [apply Rle_trans with (rpow b (Ropp 1)); [pe_rconst | pe_rpow_mono]]
        | solve [apply Rle_trans with (rpow b 0); [pe_rpow_mono | pe_rconst]]
        | solve [apply Rle_trans with (rpow b 1); [pe_rpow_mono | pe_rconst]]
        | solve [apply Rle_trans with (rpow b (Ropp 1)); [pe_rpow_mono | pe_rconst]] ].
Ltac pe_rpow_rel :=
  lazymatch goal with
  | |- rpow ?b _ = rpow ?b _ => f_equal; pe_expo
  | |- rpow ?b _ < rpow ?b _ => pe_rpow_mono
  | |- rpow ?b _ <= rpow ?b _ => pe_rpow_mono
  | |- ?k * rpow ?b _ <= ?k * rpow ?b _ => apply Rmult_le_compat_l; [pe_pos | pe_rpow_mono]
  | |- ?k * rpow ?b _ < ?k * rpow ?b _ => apply Rmult_lt_compat_l; [pe_pos | pe_rpow_mono]
  | |- ?k * rpow ?b _ = ?k * rpow ?b _ => f_equal; f_equal; pe_expo
  | |- ?k <= ?k * rpow ?b _ => rewrite <- (Rmult_1_r k) at 1; pe_rpow_rel
  | |- ?k * rpow ?b _ <= ?k => rewrite <- (Rmult_1_r k) at 2; pe_rpow_rel
  | |- ?k * 1 <= ?k * rpow ?b _ => apply Rmult_le_compat_l; [pe_pos | pe_via b]
  | |- ?k * rpow ?b _ <= ?k * 1 => apply Rmult_le_compat_l; [pe_pos | pe_via b]
  | |- _ < rpow ?b _ => pe_via b
  | |- _ <= rpow ?b _ => pe_via b
  | |- rpow ?b _ < _ => pe_via b
  | |- rpow ?b _ <= _ => pe_via b
  end.
Ltac pe_rpow :=
  intros; pe_zfacts;
  unfold Rdiv; repeat rewrite <- rpow_opp; repeat rewrite <- rpow_plus; pe_rpow_rel.

(** [pe_rpow_norm]: an equation of powers of one base: [rpow b (e + 1)] split off its factor
    [b] ([rpow_plus], [rpow_1]), or quotients and products of powers merged into one power
    ([Rinv_mult], [rpow_opp], [rpow_plus] backwards) and the exponents compared by [field]. *)
Ltac pe_rpow_norm :=
  intros; pe_zfacts;
  first [ solve [rewrite ?rpow_plus; rewrite ?rpow_1 by lra; first [ ring | (field; pe_side) ]]
        | solve [unfold Rdiv; rewrite ?Rmult_1_l, ?Rinv_mult; rewrite <- ?rpow_opp;
                 rewrite <- ?rpow_plus; f_equal; first [ ring | (field; pe_side) ]] ].

(** [pe_zsum_const]: sums of a constant are [IZR (b - a + 1) * c] ([zsum_const], Karr's
    convention for every [a], [b]); each conjunct then by [reflexivity], [ring] or [lia]. *)
Ltac pe_zsum_const :=
  intros; pe_zfacts; rewrite ?zsum_const; pe_split;
  first [ reflexivity | solve [pe_izr_push; ring] | solve [lia] | solve [pe_side] ].

(** [pe_zeq_nra]: an integer equation from real hypotheses with quotients ([(4 d - 8)/d =
    d/2] gives [d = 4]): each hypothesis [a / q = b] with [q <> 0] in context becomes
    [a = b * q], then the equation as two inequalities by [nra]. *)
Ltac pe_hyp_den :=
  repeat match goal with
  | H : ?a / ?q = ?b, Hq : ?q <> 0 |- _ =>
      let E := fresh "E" in
      assert (E : a = b * q) by (rewrite <- H; field; exact Hq); clear H
  end.
Ltac pe_zeq_nra :=
  intros; pe_zfacts; pe_hyp_den; apply eq_IZR; apply Rle_antisym; nra.

(** ** Bounds: inequalities with [Rabs], quotients and positive atoms (issue 23, item 4)

    Search again: a tactic that fails leaves the claim "not checked"; only the kernel's
    acceptance of the proof term counts.

    - [pe_abs_hyps]: every hypothesis [Rabs x <= a] becomes [- a <= x], [x <= a] and [0 <= a].
    - [pe_absgoal]: a goal [Rabs e <= b] (or [<]) becomes [- b <= e <= b].
    - [pe_abs_cases]: the remaining [Rabs] of the goal and the context split by sign.
    - [pe_posfacts]: [0 < PI], [0 < exp t], [0 < rpow b e], [0 <= sqrt t], [0 <= Rabs t] for
      every such atom of the goal and the context.
    - [pe_invs]: every [/ q] with [q] not a literal and [0 < q] provable ([lra]/[nra]) becomes a
      fresh variable [z] with [0 < z] and [q * z = 1] (the quotient made polynomial).
    - [pe_absnra]: the above, then [lra]/[nra] on each resulting goal.
*)

Lemma abs_between : forall x a, Rabs x <= a -> - a <= x /\ x <= a.
Proof. intros x a H; unfold Rabs in H; destruct (Rcase_abs x); split; lra. Qed.
Lemma abs_between_lt : forall x a, Rabs x < a -> - a < x /\ x < a.
Proof. intros x a H; unfold Rabs in H; destruct (Rcase_abs x); split; lra. Qed.
Lemma abs_bound_nonneg : forall x a, Rabs x <= a -> 0 <= a.
Proof. intros x a H; pose proof (Rabs_pos x); lra. Qed.
Lemma inv_facts : forall q, 0 < q -> 0 < / q /\ q * / q = 1.
Proof. intros q Hq; split; [apply Rinv_0_lt_compat; exact Hq | field; lra]. Qed.

Ltac pe_abs_hyps :=
  repeat match goal with
  | H : Rabs ?x <= ?a |- _ =>
      pose proof (abs_bound_nonneg x a H); apply abs_between in H; destruct H
  | H : Rabs ?x < ?a |- _ => apply abs_between_lt in H; destruct H
  end.

Ltac pe_absgoal :=
  lazymatch goal with
  | |- Rabs _ <= _ => apply Rabs_le
  | |- Rabs _ < _ => apply Rabs_def1
  | _ => idtac
  end.

Ltac pe_abs_cases :=
  unfold Rabs in *;
  repeat match goal with
  | |- context [Rcase_abs ?x] => destruct (Rcase_abs x)
  | H : context [Rcase_abs ?x] |- _ => destruct (Rcase_abs x)
  end.

Ltac pe_posfacts :=
  repeat match goal with
  | |- context [PI] =>
      lazymatch goal with _ : 0 < PI |- _ => fail | _ => assert (0 < PI) by exact PI_RGT_0 end
  | |- context [exp ?t] =>
      lazymatch goal with _ : 0 < exp t |- _ => fail | _ => pose proof (exp_pos t) end
  | |- context [rpow ?b ?e] =>
      lazymatch goal with _ : 0 < rpow b e |- _ => fail | _ => pose proof (rpow_pos b e) end
  | |- context [sqrt ?t] =>
      lazymatch goal with _ : 0 <= sqrt t |- _ => fail | _ => pose proof (sqrt_pos t) end
  | H : context [PI] |- _ =>
      lazymatch goal with _ : 0 < PI |- _ => fail | _ => assert (0 < PI) by exact PI_RGT_0 end
  | H : context [rpow ?b ?e] |- _ =>
      lazymatch goal with _ : 0 < rpow b e |- _ => fail | _ => pose proof (rpow_pos b e) end
  | H : context [exp ?t] |- _ =>
      lazymatch goal with _ : 0 < exp t |- _ => fail | _ => pose proof (exp_pos t) end
  end.

Ltac pe_invs :=
  repeat match goal with
  | |- context [/ ?q] =>
      lazymatch q with
      | context [/ _] => fail
      | IZR (Zpos _) => fail
      | _ =>
          let z := fresh "z" in let Hq := fresh "Hq" in
          assert (Hq : 0 < q) by (first [ lra | nra ]);
          destruct (inv_facts q Hq);
          set (z := / q) in *; clearbody z
      end
  end.

Ltac pe_lra_nra :=
  lazymatch goal with
  | |- _ <> _ => intro; first [ solve [lra] | solve [nra] ]
  | |- ~ _ => intro; first [ solve [lra] | solve [nra] ]
  | _ => first [ solve [lra] | solve [nra] ]
  end.

Ltac pe_absnra :=
  intros; pe_zfacts; pe_abs_hyps; pe_split; pe_absgoal; pe_abs_cases; pe_split; pe_lra_nra.

(** Quotients with positive denominators and positive atoms: [nra] on the polynomial form. *)
Ltac pe_divnra :=
  intros; pe_zfacts; pe_split; pe_posfacts; unfold Rdiv in *; pe_invs; pe_lra_nra.

(** [pe_gcongr]: a relation between two terms of the same shape reduced to the relation of
    the parts that differ (common summands dropped, common factors dropped when their sign is
    known by [pe_possign]), greedily; each step only strengthens the goal, and the end is
    closed by [lra]/[nra]. *)
Ltac pe_possign :=
  pe_zfacts; pe_posfacts;
  repeat lazymatch goal with
  | |- 0 < ?a * ?b => apply (Rmult_lt_0_compat a b)
  | |- 0 < / ?a => apply (Rinv_0_lt_compat a)
  | |- 0 <= ?a * ?b => apply (Rmult_le_pos a b)
  | |- 0 <= / ?a => left; apply (Rinv_0_lt_compat a)
  end;
  lra.

(** Syntactic matches only: [apply] of a compatibility lemma on a goal of another shape could
    unfold [Rplus]/[Rmult] (definitions over Cauchy reals) while unifying. *)
Ltac pe_gcongr_step :=
  lazymatch goal with
  | |- ?a + ?b < ?a + ?c => apply (Rplus_lt_compat_l a b c)
  | |- ?a + ?b <= ?a + ?c => apply (Rplus_le_compat_l a b c)
  | |- ?b + ?a < ?c + ?a => apply (Rplus_lt_compat_r a b c)
  | |- ?b + ?a <= ?c + ?a => apply (Rplus_le_compat_r a b c)
  | |- ?a * ?b < ?a * ?c => apply (Rmult_lt_compat_l a b c); [solve [pe_possign] |]
  | |- ?a * ?b <= ?a * ?c => apply (Rmult_le_compat_l a b c); [solve [pe_possign] |]
  | |- ?b * ?a < ?c * ?a => apply (Rmult_lt_compat_r a b c); [solve [pe_possign] |]
  | |- ?b * ?a <= ?c * ?a => apply (Rmult_le_compat_r a b c); [solve [pe_possign] |]
  end.

Ltac pe_gcongr :=
  intros; pe_zfacts; unfold Rdiv;
  repeat (assert_fails (solve [lra]); pe_gcongr_step);
  pe_posfacts; first [ solve [pe_possign] | pe_lra_nra ].

(** [pe_frac]: an inequality with quotients, as the sign of the difference of its sides: the
    difference is one fraction [n / d] ([field_simplify], each denominator nonzero by
    [pe_nz]), [d] positive by [pe_possign] and [n] by [lra]/[nra] -- now a polynomial (the
    affine maps [c + (d - c)(x - a)/(b - a)] of the fourier family, [2 PI l / N < 2 PI]). *)
Lemma pe_le_diff : forall a b, 0 <= b - a -> a <= b.
Proof. intros; lra. Qed.
Lemma pe_lt_diff : forall a b, 0 < b - a -> a < b.
Proof. intros; lra. Qed.
Lemma pe_div_nonneg : forall n d, 0 <= n -> 0 < d -> 0 <= n / d.
Proof. intros n d Hn Hd; unfold Rdiv; apply Rmult_le_pos; [exact Hn | left; apply Rinv_0_lt_compat; exact Hd]. Qed.
Lemma pe_div_pos : forall n d, 0 < n -> 0 < d -> 0 < n / d.
Proof. intros n d Hn Hd; unfold Rdiv; apply Rmult_lt_0_compat; [exact Hn | apply Rinv_0_lt_compat; exact Hd]. Qed.
Ltac pe_nz := first [ solve [pe_side] | solve [apply Rgt_not_eq; unfold Rgt; pe_possign]
                    | solve [apply Rlt_not_eq; apply Ropp_lt_cancel; rewrite Ropp_0; pe_possign] ].
Ltac pe_frac_num := pe_posfacts; first [ solve [lra] | solve [nra] ].
Ltac pe_frac :=
  intros; pe_zfacts; rewrite ?plus_IZR, ?minus_IZR, ?mult_IZR, ?opp_IZR in *;
  lazymatch goal with
  | |- _ <= _ => apply pe_le_diff
  | |- _ < _ => apply pe_lt_diff
  end;
  field_simplify; [ first [ solve [apply pe_div_nonneg; [pe_frac_num | pe_possign]]
                          | solve [apply pe_div_pos; [pe_frac_num | pe_possign]]
                          | solve [pe_frac_num] ]
                  | solve [pe_nz] .. ].

(** [pe_piZ]: [sin t = 0], [cos t = 1], [cos t = -1] where [t] is [PI] times an integer of the
    context (times 2 for [cos t = 1]; plus [PI] for [cos t = -1]), the equality of angles by
    [ring] or [field] (denominators nonzero by [pe_side]).  The integer is searched among the
    context's integer variables ([match] backtracks over them). *)
Lemma cos_2piZ_PI : forall n : Z, cos (2 * PI * IZR n + PI) = -1.
Proof. intro n; rewrite cos_plus, cos_2piZ, sin_2piZ, cos_PI, sin_PI; ring. Qed.

Ltac pe_piZ :=
  intros; pe_zfacts;
  lazymatch goal with
  | |- sin ?t = 0 =>
      match goal with v : Z |- _ =>
        rewrite (sin_arg t (PI * IZR v)) by first [ ring | (field; pe_side) ]; apply sin_piZ end
  | |- cos ?t = 1 =>
      match goal with v : Z |- _ =>
        rewrite (cos_arg t (2 * PI * IZR v)) by first [ ring | (field; pe_side) ];
        apply cos_2piZ end
  | |- cos ?t = - 1 =>
      match goal with v : Z |- _ =>
        rewrite (cos_arg t (2 * PI * IZR v + PI)) by first [ ring | (field; pe_side) ];
        apply cos_2piZ_PI end
  end.

(** [pe_intpart]: floor and Mod of an integer by a positive literal ([floor(j/2)],
    [Mod(j, 2) = j - 2 floor(j/2)]) are Z's division ([Int_part_IZR_div]); the relation,
    folded back under one [IZR], is then one of Z, closed by [lia] with the divisions as
    equations. *)
Lemma Int_part_IZR_div : forall (z : Z) (p : positive),
  Int_part (IZR z / IZR (Zpos p)) = (z / Zpos p)%Z.
Proof.
  intros z p.
  pose proof (Z.div_mod z (Zpos p) ltac:(lia)) as E.
  pose proof (Z.mod_pos_bound z (Zpos p) ltac:(lia)) as B.
  assert (Hp : 0 < IZR (Zpos p)) by (apply IZR_lt; lia).
  set (q := (z / Zpos p)%Z) in *; set (r := (z mod Zpos p)%Z) in *.
  assert (Ez : IZR z = IZR (Zpos p) * IZR q + IZR r) by (rewrite E, plus_IZR, mult_IZR; reflexivity).
  assert (H0 : 0 <= IZR r) by (apply IZR_le; lia).
  assert (H1 : IZR r + 1 <= IZR (Zpos p)) by (rewrite <- plus_IZR; apply IZR_le; lia).
  unfold Int_part; rewrite <- (tech_up _ (q + 1)); [lia | |]; rewrite plus_IZR, Ez.
  - apply (Rmult_lt_reg_r (IZR (Zpos p))); [exact Hp|]. field_simplify; [nra|lra].
  - apply (Rmult_le_reg_r (IZR (Zpos p))); [exact Hp|]. field_simplify; [nra|lra].
Qed.
Ltac pe_zlia := Z.div_mod_to_equations; lia.
Ltac pe_intpart :=
  intros; rewrite ?Int_part_IZR_div;
  repeat first [ rewrite <- plus_IZR | rewrite <- minus_IZR | rewrite <- mult_IZR
               | rewrite <- opp_IZR ];
  first [ solve [f_equal; pe_zlia] | solve [apply IZR_le; pe_zlia]
        | solve [apply IZR_lt; pe_zlia] ].
