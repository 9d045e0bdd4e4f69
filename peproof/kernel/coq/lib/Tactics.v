(** * Tactics: general proof search for the translator's goals

    These tactics are SEARCH: whatever they do, the goal is closed only by a proof term that
    Coq's kernel re-checks.  A tactic that fails leaves the claim "not checked in Coq"; it can
    never make a false goal true.

    - [pe_trig]: identities between polynomials in [sin]/[cos] of linear forms, on one term:
      the IZR casts are pushed to the atoms, every [sin]/[cos] argument is expanded with the
      addition formulas down to products of atoms, arguments equal (or opposite) by [ring] are
      made syntactically equal, powers become products, and the goal is closed by [ring],
      [field], or [nsatz] with [sin t ^ 2 + cos t ^ 2 = 1] for every argument [t].
    - [pe_sum]: one equation between sums with the same limits (and scalar multiples,
      differences, quotients by constants of them), or a sum against a constant: the sums are
      merged into one ([zsum_plus] / [zsum_minus] / [zsum_scal] read backwards) and lifted
      termwise with [zsum_ext_gen] (no condition on the limits), or the summand is shown
      termwise equal to [1] or [0] and [zsum_const] finishes with integer arithmetic.
    - [pe_prep]: turns the evenness hypotheses of [d] ([Z.Even d], [Z.even d = true],
      [d mod 2 = 0]) into [d = 2 * n] and substitutes.
    - [pe_conj]: a conjunction, conjunct by conjunct; each conjunct proved is first generalised
      over its variables and kept as a lemma, so the next conjunct of the same shape (the same
      identity at another frequency: block [j] of a concrete width) is closed by [apply] alone;
      the conjuncts' proofs are assembled in linear time ([tprop_intro]), not by [split].
    - [pe_arith]: the arithmetic side goals (definedness obligations of the translation).
    - [pe_auto]: [intros; pe_prep; pe_conj] with [pe_arith], [pe_sum] or [pe_trig] on each
      conjunct.
*)

From Coq Require Import ZArith Reals Lia Lra Nsatz.
From PEProof Require Import Defs PE.
Open Scope R_scope.

Lemma pow_S_unfold : forall x n, x ^ S n = x * x ^ n.
Proof. reflexivity. Qed.
Lemma pow_O_unfold : forall x, x ^ O = 1.
Proof. reflexivity. Qed.

Lemma zsum_div : forall a b c f, zsum a b f / c = zsum a b (fun i => f i / c).
Proof.
  intros; unfold Rdiv; rewrite Rmult_comm, <- zsum_scal; apply zsum_ext_all; intro; ring.
Qed.
Lemma zsum_scal_r : forall a b c f, zsum a b f * c = zsum a b (fun i => f i * c).
Proof. intros; rewrite Rmult_comm, <- zsum_scal; apply zsum_ext_all; intro; ring. Qed.

(** A marker for the lemmas [pe_conj] keeps (so that only they are tried by [apply]). *)
Definition pe_lemma (P : Prop) : Prop := P.

(** ** One term *)

(** [reflexivity] only when both sides are the same term: a conversion check could unfold
    [sin] (a power series) and run for minutes. *)
Ltac pe_refl := match goal with |- ?a = ?b => constr_eq a b; reflexivity end.

Ltac pe_izr := rewrite ?plus_IZR, ?minus_IZR, ?mult_IZR, ?opp_IZR.

Ltac pe_pow := repeat match goal with
  | |- context [?x ^ S ?n] => rewrite (pow_S_unfold x n)
  | |- context [?x ^ O] => rewrite (pow_O_unfold x)
  end.

(** One distribution step inside the angle [t] (fails when [t] is a product of atoms). *)
Ltac pe_distr t :=
  match t with
  | context [?c * (?a + ?b)] => rewrite (Rmult_plus_distr_l c a b)
  | context [(?a + ?b) * ?c] => rewrite (Rmult_plus_distr_r a b c)
  | context [?c * (?a - ?b)] => rewrite (Rmult_minus_distr_l c a b)
  | context [(?a - ?b) * ?c] => rewrite (Rmult_minus_distr_r c a b)
  | context [?c * - ?a] => rewrite <- (Ropp_mult_distr_r c a)
  | context [- ?a * ?c] => rewrite (Ropp_mult_distr_l_reverse a c)
  | context [(?a + ?b) / ?c] => rewrite (Rdiv_plus_distr a b c)
  | context [(?a - ?b) / ?c] => rewrite (Rdiv_minus_distr a b c)
  | context [- ?a / ?c] => rewrite (Ropp_div a c)
  | context [- - ?a] => rewrite (Ropp_involutive a)
  end.

Ltac pe_expand_step :=
  match goal with
  | |- context [sin (?a + ?b)] => rewrite (sin_plus a b)
  | |- context [cos (?a + ?b)] => rewrite (cos_plus a b)
  | |- context [sin (?a - ?b)] => rewrite (sin_minus a b)
  | |- context [cos (?a - ?b)] => rewrite (cos_minus a b)
  | |- context [sin (- ?a)] => rewrite (sin_neg a)
  | |- context [cos (- ?a)] => rewrite (cos_neg a)
  | |- context [sin ?t] => pe_distr t
  | |- context [cos ?t] => pe_distr t
  end.

Ltac is_trig f := lazymatch f with sin => idtac | cos => idtac end.

(** A marker hypothesis [pe_angle t]: [t] is an angle (argument of [sin] or [cos]) of the goal. *)
Definition pe_angle (t : R) : Prop := True.

Ltac pe_mark_angles :=
  repeat match goal with
  | |- context [?f ?t] =>
      is_trig f;
      lazymatch goal with
      | _ : pe_angle t |- _ => fail
      | _ => assert (pe_angle t) by exact I
      end
  end.

Ltac pe_clear_angles := repeat match goal with H : pe_angle _ |- _ => clear H end.

(** Two syntactically different angles equal, or opposite, by [ring]: one is rewritten.  Each
    pair of distinct angles is tried once; the step fails when no pair is related. *)
Ltac pe_unify_step :=
  pe_mark_angles;
  first [ match goal with
          | _ : pe_angle ?t1, _ : pe_angle ?t2 |- _ =>
              assert_fails (constr_eq t1 t2);
              first [ replace t2 with t1 by ring | replace t2 with (- t1) by ring ]
          end; pe_clear_angles
        | pe_clear_angles; fail 1 ].

(** An angle that is twice another, or the sum or the difference of two others (by [ring]), is
    rewritten so; the
    step fails when there is none.  Cubic in the number of angles: the last resort of
    [pe_trig]. *)
Ltac pe_retarget t e :=
  let E := fresh "E" in
  assert (E : t = e) by (first [ring | field]);
  first [ rewrite (f_equal sin E); first [ rewrite (f_equal cos E) | idtac ]
        | rewrite (f_equal cos E) ];
  clear E.

Ltac pe_sum_step :=
  pe_mark_angles;
  first [ match goal with
          | _ : pe_angle ?t, _ : pe_angle ?t1 |- _ => pe_retarget t (t1 + t1)
          | _ : pe_angle ?t, _ : pe_angle ?t1, _ : pe_angle ?t2 |- _ =>
              assert_fails (constr_eq t t1); assert_fails (constr_eq t t2);
              first [ pe_retarget t (t1 + t2) | pe_retarget t (t1 - t2) ]
          end; pe_clear_angles
        | pe_clear_angles; fail 1 ].

(** [Rdiv] is unfolded first: [ring] does not read [x / c] ([x * / c] it does). *)
Ltac pe_normalize :=
  unfold Rdiv; rewrite ?rpow_opp, ?half_even, ?half_odd, ?Z.sub_0_r, ?Z.sub_add; pe_izr;
  repeat pe_expand_step; repeat (pe_unify_step; repeat pe_expand_step); pe_pow.

Ltac pe_pyth :=
  repeat match goal with
  | |- context [sin ?t] =>
      lazymatch goal with
      | _ : sin t * sin t + cos t * cos t = 1 |- _ => fail
      | _ => pose proof (pair_norm t)
      end
  | |- context [cos ?t] =>
      lazymatch goal with
      | _ : sin t * sin t + cos t * cos t = 1 |- _ => fail
      | _ => pose proof (pair_norm t)
      end
  end.

(** [nsatz] reverts every equation in the context: keep only the real ones. *)
Ltac clear_nonR :=
  repeat match goal with
  | H : @eq ?T _ _ |- _ => lazymatch T with R => fail | _ => clear H end
  | H : pe_lemma _ |- _ => clear H
  end.

(** Side conditions [x <> 0] of [field]: powers of a positive base, literals, casts. *)
Ltac pe_nonzero :=
  repeat split;
  first [ apply rpow_neq_0 | apply Rinv_neq_0_compat; pe_nonzero | lra
        | apply not_0_IZR; lia
        | rewrite <- ?plus_IZR, <- ?minus_IZR, <- ?mult_IZR, <- ?opp_IZR; apply not_0_IZR; lia
        | apply Rmult_integral_contrapositive_currified; pe_nonzero ].

Ltac pe_close :=
  first [ solve [ring]
        | solve [field; pe_nonzero]
        | solve [pe_pyth; clear_nonR; nsatz]
        | solve [pe_pyth; field_simplify_eq; first [ pe_nonzero | pe_pow; clear_nonR; nsatz ]] ].

(** An identity on one term. *)
Ltac pe_trig_fast := first [ pe_refl | solve [pe_normalize; pe_close] ].
Ltac pe_trig_full := solve [pe_normalize; repeat (pe_sum_step; pe_normalize); pe_close].
Ltac pe_trig := first [ pe_trig_fast | pe_trig_full ].

(** ** Sums *)

(** Integer arithmetic left by [zsum_const]: [IZR (b - a + 1) * c = rhs]. *)
Ltac pe_count :=
  rewrite ?half_even, ?half_odd, ?Z.sub_0_r; pe_izr;
  first [ solve [field] | solve [lra] | solve [nra] ].

(** Merge the sums of the goal into one per side (same limits). *)
Ltac pe_merge :=
  repeat first
    [ rewrite zsum_div | rewrite zsum_scal_r | rewrite <- zsum_scal
    | rewrite <- zsum_plus | rewrite <- zsum_minus | rewrite <- zsum_opp ];
  cbv beta.

Ltac pe_lift_const a b f tac :=
  first [ rewrite (zsum_ext_gen a b f (fun _ => 1)) by (intros ? ?; cbv beta; tac)
        | rewrite (zsum_ext_gen a b f (fun _ => 0)) by (intros ? ?; cbv beta; tac) ];
  rewrite zsum_const; pe_count.

(** [pe_tosum a b r]: a summand [g] with [zsum a b g = r], read on the structure of [r]: its
    sums over [a..b] are kept, sums are added, subtracted, negated, multiplied or divided by
    factors without a sum, and a term without a sum becomes the constant [c / (b - a + 1)].
    Fails when a sum of [r] has other limits or sits under another function. *)
Ltac pe_tosum a b r :=
  lazymatch r with
  | zsum a b ?g => g
  | zsum _ _ _ => fail
  | ?x + ?y =>
      let f := pe_tosum a b x in let g := pe_tosum a b y in constr:(fun i : Z => f i + g i)
  | ?x - ?y =>
      let f := pe_tosum a b x in let g := pe_tosum a b y in constr:(fun i : Z => f i - g i)
  | - ?x => let f := pe_tosum a b x in constr:(fun i : Z => - f i)
  | ?c * ?x =>
      lazymatch c with
      | context [zsum _ _ _] =>
          lazymatch x with
          | context [zsum _ _ _] => fail
          | _ => let f := pe_tosum a b c in constr:(fun i : Z => f i * x)
          end
      | _ =>
          lazymatch x with
          | context [zsum _ _ _] => let f := pe_tosum a b x in constr:(fun i : Z => c * f i)
          | _ => constr:(fun _ : Z => r / IZR (b - a + 1))
          end
      end
  | ?x / ?c =>
      lazymatch c with
      | context [zsum _ _ _] => fail
      | _ =>
          lazymatch x with
          | context [zsum _ _ _] => let f := pe_tosum a b x in constr:(fun i : Z => f i / c)
          | _ => constr:(fun _ : Z => r / IZR (b - a + 1))
          end
      end
  | context [zsum _ _ _] => fail
  | _ => constr:(fun _ : Z => r / IZR (b - a + 1))
  end.

Section Unsum.
Variables (a b : Z) (f g : Z -> R) (x y c : R).
Lemma zsum_plus_e : zsum a b f = x -> zsum a b g = y -> zsum a b (fun i => f i + g i) = x + y.
Proof. intros; rewrite zsum_plus; f_equal; assumption. Qed.
Lemma zsum_minus_e : zsum a b f = x -> zsum a b g = y -> zsum a b (fun i => f i - g i) = x - y.
Proof. intros; rewrite zsum_minus; f_equal; assumption. Qed.
Lemma zsum_opp_e : zsum a b f = x -> zsum a b (fun i => - f i) = - x.
Proof. intros; rewrite zsum_opp; f_equal; assumption. Qed.
Lemma zsum_scal_e : zsum a b f = x -> zsum a b (fun i => c * f i) = c * x.
Proof. intros; rewrite zsum_scal; f_equal; assumption. Qed.
Lemma zsum_scal_r_e : zsum a b f = x -> zsum a b (fun i => f i * c) = x * c.
Proof. intros; rewrite <- zsum_scal_r; f_equal; assumption. Qed.
Lemma zsum_div_e : zsum a b f = x -> zsum a b (fun i => f i / c) = x / c.
Proof. intros; rewrite <- zsum_div; f_equal; assumption. Qed.
Lemma zsum_const_e : IZR (b - a + 1) <> 0 -> zsum a b (fun _ => c / IZR (b - a + 1)) = c.
Proof. intros; rewrite zsum_const; field; assumption. Qed.
End Unsum.

(** [zsum a b g = r] for the [g] of [pe_tosum], by the lemmas above in the same structure. *)
Ltac pe_unsum :=
  repeat first [ pe_refl
               | apply zsum_plus_e | apply zsum_minus_e | apply zsum_opp_e | apply zsum_scal_e
               | apply zsum_scal_r_e | apply zsum_div_e
               | apply zsum_const_e; apply not_0_IZR; Z.div_mod_to_equations; lia ].

(** One side a sum over [a..b], the other an expression in sums over [a..b] and constants: both
    sides become one sum each, lifted termwise. *)
Ltac pe_lift_affine tac :=
  lazymatch goal with
  | |- zsum ?a ?b ?f = ?r =>
      let g := pe_tosum a b r in
      transitivity (zsum a b g);
      [ apply zsum_ext_gen; intros ? ?; cbv beta; tac | solve [pe_unsum] ]
  | |- ?r = zsum ?a ?b ?f => symmetry; pe_lift_affine tac
  end.

Ltac pe_lift_with tac :=
  lazymatch goal with
  | |- zsum ?a ?b _ = zsum ?a ?b _ => apply zsum_ext_gen; intros ? ?; cbv beta; tac
  | |- zsum ?a ?b ?f = ?r =>
      lazymatch r with
      | context [zsum _ _ _] => pe_lift_affine tac
      | _ => first [ pe_lift_const a b f tac | pe_lift_affine tac ]
      end
  | |- _ = zsum _ _ _ => symmetry; pe_lift_with tac
  end.

Ltac pe_sum_with tac := pe_merge; pe_lift_with tac.
Ltac pe_sum := first [ solve [pe_sum_with pe_trig_fast] | solve [pe_sum_with pe_trig_full] ].

(** ** Hypotheses on [d], conjunctions, the entry point *)

Ltac pe_prep :=
  repeat match goal with
  | H : Z.even ?d = true |- _ => apply Z.even_spec in H
  | H : (?d mod 2 = 0)%Z |- _ =>
      let E := fresh "E" in assert (E : Z.Even d) by (exists (d / 2)%Z; zlia); clear H
  | H : Z.Even ?d |- _ =>
      let n := fresh "n" in let En := fresh "En" in
      destruct H as [n En]; first [ subst d | rewrite En in * ]
  end.

(** The goal [A] generalised over every variable it contains. *)
Ltac pe_generalize A :=
  match A with
  | context [?x] =>
      let x := constr:(ltac:(is_var x; exact x)) in
      let T := type of x in
      let P := eval pattern x in A in
      lazymatch P with
      | ?F x => pe_generalize constr:(forall y : T, F y)
      end
  | _ => constr:(A)
  end.

Ltac pe_reuse := match goal with L : pe_lemma _ |- _ => solve [apply L] end.

(** Arithmetic side goals (no [sin], [cos] or [zsum]): the translator's definedness
    obligations ([IZR d <> 0], [IZR (d / 2 - 1) = IZR d / 2 - 1] for an even [d]) and the
    like. *)
Ltac pe_arith :=
  lazymatch goal with
  | |- context [sin _] => fail
  | |- context [cos _] => fail
  | |- context [zsum _ _ _] => fail
  | _ =>
      first [ solve [lia] | solve [lra]
            | solve [apply not_0_IZR; lia] | solve [apply IZR_lt; lia] | solve [apply IZR_le; lia]
            | solve [rewrite ?half_even, ?half_odd; pe_izr; field]
            | solve [rewrite ?half_even, ?half_odd; pe_izr; lra]
            | solve [nra] ]
  end.

(** The cheap searches first, then those with [pe_sum_step] (cubic in the angles). *)
Ltac pe_one :=
  first [ pe_refl | pe_reuse | solve [pe_arith]
        | solve [pe_sum_with pe_trig_fast] | pe_trig_fast
        | solve [pe_sum_with pe_trig_full] | pe_trig_full ].

(** *** Long conjunctions in linear time

    Splitting an [n]-fold right-nested conjunction with [split] costs [O(n^2)] (each [conj] node
    carries the rest of the conjunction, which is type-checked again): 400 conjuncts took 8 s at
    [Qed].  Instead the conjunction's tree (any nesting: the translator prints long ones as
    balanced trees) is rebuilt as a [ptree] of pairs [existT A p] (conjunct, proof) by [refine]
    on goals whose type never mentions the conjunction, and the goal is [tprop t] by
    conversion: each conjunct is type-checked a bounded number of times. *)
Definition proved : Type := {P : Prop & P}.

Inductive ptree : Type :=
  | pleaf (p : proved)
  | pnode (l r : ptree).

Fixpoint tprop (t : ptree) : Prop :=
  match t with
  | pleaf p => projT1 p
  | pnode l r => tprop l /\ tprop r
  end.

Lemma tprop_intro : forall t : ptree, tprop t.
Proof. induction t as [[P p]|l IHl r IHr]; simpl; [exact p | split; assumption]. Qed.

(** Pass 1: for each conjunct no kept lemma closes, the conjunct generalised over its variables
    is proved and kept; when that fails, the conjunct itself (it may need the hypotheses in
    context); when that fails too, [pe_conj] fails at once (a false conjunct is not followed by
    the search of all the others). *)
Ltac pe_learn_one A :=
  first [ assert_succeeds (assert A by first [pe_refl | pe_reuse])
        | let G := pe_generalize A in
          let G := eval cbv beta in G in
          let L := fresh "L" in
          assert (L : pe_lemma G) by (unfold pe_lemma; intros; pe_one)
        | let L := fresh "L" in
          assert (L : pe_lemma A) by (unfold pe_lemma; pe_one) ].

Ltac pe_learn G :=
  lazymatch G with
  | ?A /\ ?B => pe_learn A; pe_learn B
  | ?A => pe_learn_one A
  end.

(** Pass 2: the tree, each leaf proved by a kept lemma or by the search itself.  The tree is
    built as a term ([constr:]), each leaf's proof found and normalised on its own, not as one
    [refine] goal per node: the nodes' evars, each carrying the whole context, made the
    normalisation of the proof quadratic in the context (a concrete-d goal under 514 binders:
    16.6 s of 1646 leaves, 0.5 s as a term).  The kernel still checks [tprop t] against the
    goal at [Qed]. *)
Ltac pe_tree G :=
  lazymatch G with
  | ?A /\ ?B => let l := pe_tree A in let r := pe_tree B in constr:(pnode l r)
  | ?A => let p := constr:(ltac:(pe_one) : A) in
          constr:(pleaf (@existT Prop (fun P : Prop => P) A p))
  end.

Ltac pe_conj :=
  lazymatch goal with
  | |- ?G =>
      lazymatch G with
      | _ /\ _ => pe_learn G; let t := pe_tree G in exact_no_check (tprop_intro t)
      | _ => pe_one
      end
  end.

Ltac pe_auto := intros; pe_prep; pe_conj.
